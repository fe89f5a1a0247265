"""Actions on tournaments and stages: one function per state change, each in one transaction
with its audit event, side effects sent with ``on_commit``.

Every change of a stage's status goes through :func:`move`, which checks it against
``Stage.TRANSITIONS``.

Settings and when they freeze (:func:`frozen_stage_fields`, :func:`frozen_tournament_fields`;
each setting says which rule is its own in apps/stages/settings_catalog.py):

- a stage's pairing settings (``PAIRING_FIELDS``) change only while its registration is open:
  the entrant list and these settings are what the draw is made from (reopen registration to
  change them before the draw; after it they are final);
- its kind and place (``PLACE_FIELDS``) change until it is drawn (and not while a draw runs);
- its qualification rule (``QUALIFICATION_FIELDS``) until the qualification is confirmed,
  as on the qualification page;
- its play period (``PLAY_FIELDS``, a Swiss round's deadline among them) until it is closed
  (a new number of days each round lasts applies from the next round on);
- the tournament's games per player (``GAMES_FIELDS``) while no Silli stage that plays them
  has closed its registration; its points, tie-breaks and ranking (``SCORING_FIELDS``) until a
  stage is published (standings are counted with them); its name, address, description,
  contact and dates always.

A change that touches a frozen field is refused whole, with the reason; a field sent with its
current value is no change.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, cast

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.core.permissions import Actor, require_organizer, require_signed_in, signed_in

from .models import DrawJob, Stage, Tournament
from .settings_catalog import STAGE_SETTINGS, TOURNAMENT_SETTINGS, Freeze

# The settings of a tournament and of a stage (apps/stages/settings_catalog.py), by when they
# freeze.
TOURNAMENT_FIELDS = TOURNAMENT_SETTINGS.names()
GAMES_FIELDS = TOURNAMENT_SETTINGS.names(Freeze.GAMES)
SCORING_FIELDS = TOURNAMENT_SETTINGS.names(Freeze.SCORING)

STAGE_FIELDS = STAGE_SETTINGS.names()
PLACE_FIELDS = STAGE_SETTINGS.names(Freeze.PLACE)
PAIRING_FIELDS = STAGE_SETTINGS.names(Freeze.PAIRING)
QUALIFICATION_FIELDS = STAGE_SETTINGS.names(Freeze.QUALIFICATION)
PLAY_FIELDS = STAGE_SETTINGS.names(Freeze.PLAY)
SERVER_FIELDS = STAGE_SETTINGS.names(Freeze.SERVER)

SLUG_MAX_LENGTH = cast(int, Tournament._meta.get_field("slug").max_length)  # a SlugField's
UNDRAWN = (Stage.Status.DRAFT, Stage.Status.REGISTRATION_CLOSED)
DRAWING = (DrawJob.Status.PENDING, DrawJob.Status.RUNNING)


# ---------------------------------------------------------------------------
# Who may create tournaments
# ---------------------------------------------------------------------------


def can_create_tournaments(user: Actor) -> bool:
    """Staff, and users holding the model permission ``stages.add_tournament``."""
    if not signed_in(user) or not user.is_active:
        return False
    return bool(user.is_staff or user.has_perm("stages.add_tournament"))


def require_tournament_creator(user: Actor) -> None:
    require_signed_in(user)
    if not can_create_tournaments(user):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _(
                "Only staff and users with the right to create tournaments may create one; "
                "ask a staff member for it."
            ),
        )


# ---------------------------------------------------------------------------
# Tournaments
# ---------------------------------------------------------------------------


def create_tournament(
    user: Actor, *, name: str, slug: str, stages: list[dict] | None = None, **fields: Any
) -> Tournament:
    """A tournament with its stages (default: one Silli preliminary), the user its organizer.

    The builder under :func:`new_tournament`, which pages and the API call; it checks no
    permission and takes the values as given (the demo, commands and tests build with it).
    """
    with transaction.atomic():
        tournament = Tournament.objects.create(name=name, slug=slug, **fields)
        if user is not None and user.is_authenticated:
            tournament.organizers.add(user)
        kinds = []
        for order, spec in enumerate(stages or [{}], start=1):
            kind = spec.get("kind", Stage.Kind.PRELIMINARY)
            Stage.objects.create(
                tournament=tournament, order=order, **{**stage_defaults(kind), **spec}
            )
            kinds.append(str(kind))
        record(
            Action.TOURNAMENT_CREATED,
            user,
            tournament=tournament,
            name=name,
            slug=slug,
            stages=kinds,
            **{key: _json(value) for key, value in fields.items()},
        )
    return tournament


def new_tournament(
    user: Actor, *, name: str, slug: str = "", stage_kinds: Iterable[str] = (), **fields: Any
) -> Tournament:
    """Create a tournament as ``user`` (staff, or holding ``stages.add_tournament``), who
    becomes its organizer, with a stage of each of ``stage_kinds`` (default: a preliminary).

    ``slug`` empty: made from the name, with a suffix if another tournament has it; a slug
    given and taken is refused, naming the field.
    """
    require_tournament_creator(user)
    _known(fields, TOURNAMENT_FIELDS)
    name = (name or "").strip()
    slug = (slug or "").strip()
    kinds = list(stage_kinds) or [Stage.Kind.PRELIMINARY]
    for kind in kinds:
        if kind not in Stage.Kind.values:
            raise _invalid("stage_kinds", _("%(kind)r is not a kind of stage.") % {"kind": kind})
    try:
        with transaction.atomic():
            if not slug:
                slug = free_slug(name)
            elif Tournament.objects.filter(slug=slug).exists():
                raise _slug_taken(slug)
            candidate = Tournament(name=name, slug=slug, **fields)
            _check(candidate)
            return create_tournament(
                user,
                name=name,
                slug=slug,
                stages=[{"kind": kind} for kind in kinds],
                **fields,
            )
    except IntegrityError as error:
        # Another request took the slug between the check and the insert.
        raise _slug_taken(slug) from error


def free_slug(name: str) -> str:
    """A slug made from ``name`` that no tournament has yet (``cup``, ``cup-2``, …)."""
    base = slugify(name)[: SLUG_MAX_LENGTH - 6].strip("-") or "tournament"
    taken = set(Tournament.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, number = base, 1
    while slug in taken:
        number += 1
        slug = f"{base}-{number}"
    return slug


def frozen_tournament_fields(tournament: Tournament) -> dict[str, str]:
    """The tournament's settings that can no longer change, each with the reason."""
    stages = list(tournament.stages.order_by("order"))
    reasons: dict[str, str] = {}
    playing = next(
        (
            s
            for s in stages
            if s.games_per_player_override is None
            and s.format == Stage.Format.SILLI
            and s.status != Stage.Status.DRAFT
        ),
        None,
    )
    if playing is not None:
        reason = _(
            "The %(stage)s plays the tournament's games per player and its registration is "
            "closed, so they can no longer change; give a later stage its own number instead."
        ) % {"stage": _stage_name(playing)}
        reasons.update(dict.fromkeys(GAMES_FIELDS, reason))
    published = next((s for s in stages if s.is_public), None)
    if published is not None:
        reason = _(
            "The %(stage)s is published and its standings are counted with these points and "
            "tie-breaks, so they can no longer change."
        ) % {"stage": _stage_name(published)}
        reasons.update(dict.fromkeys(SCORING_FIELDS, reason))
    return reasons


def update_tournament(user: Actor, tournament: Tournament, **changes: Any) -> Tournament:
    """Change a tournament's settings (organizers); a frozen one is refused with the reason.

    Fields not in ``changes``, or sent with their current value, stay as they are.
    """
    require_organizer(user, tournament)
    _known(changes, TOURNAMENT_FIELDS)
    if "name" in changes:
        changes["name"] = (changes["name"] or "").strip()
    if "slug" in changes:
        changes["slug"] = (changes["slug"] or "").strip()
    try:
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
            changed = _changed(tournament, changes)
            if not changed:
                return tournament
            _refuse_frozen(changed, frozen_tournament_fields(tournament))
            slug = str(changed["slug"][1]) if "slug" in changed else ""
            if slug and Tournament.objects.filter(slug=slug).exclude(pk=tournament.pk).exists():
                raise _slug_taken(slug)
            for field, (_old, new) in changed.items():
                setattr(tournament, field, new)
            _check(tournament)
            if "games_per_player" in changed:
                _check_formulas_of_inheriting_stages(tournament)
            tournament.save(update_fields=list(changed))
            record(
                Action.TOURNAMENT_UPDATED,
                user,
                tournament=tournament,
                changes={field: [_json(old), _json(new)] for field, (old, new) in changed.items()},
            )
            return tournament
    except IntegrityError as error:
        raise _slug_taken(changes.get("slug", "")) from error


def _check_formulas_of_inheriting_stages(tournament: Tournament) -> None:
    for stage in tournament.stages.filter(games_per_player_override__isnull=True):
        stage.tournament = tournament
        if stage.formula and "formula" in stage.setting_errors():
            raise _invalid(
                "games_per_player",
                _(
                    "The %(stage)s has a formula given by hand for %(count)s games per player; "
                    "change its formula or give it its own games per player first."
                )
                % {"stage": _stage_name(stage), "count": len(stage.formula) * 2},
            )


# ---------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------


def suggested_kind(tournament: Tournament) -> str:
    """The kind a new stage most likely is: a preliminary first, then a semifinal, then a
    final."""
    last = tournament.stages.order_by("-order").first()
    if last is None:
        return Stage.Kind.PRELIMINARY
    if last.kind == Stage.Kind.PRELIMINARY:
        return Stage.Kind.SEMIFINAL
    return Stage.Kind.FINAL


def stage_defaults(kind: str) -> dict[str, object]:
    """The settings whose default for a new stage of ``kind`` is not the model's (a final
    lets players of one nation meet)."""
    return {
        setting.name: setting.default_by_kind[kind]
        for setting in STAGE_SETTINGS
        if kind in setting.default_by_kind
    }


def add_stage(user: Actor, tournament: Tournament, **fields: Any) -> Stage:
    """Add a stage to the tournament (organizers).

    ``kind`` defaults to :func:`suggested_kind`, ``order`` to after the last stage; a stage
    placed before others moves them one place on (they must not be drawn yet). The settings
    not given take the kind's defaults (:func:`stage_defaults`), then the model's.
    """
    require_organizer(user, tournament)
    _known(fields, STAGE_FIELDS)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
        kind = fields.pop("kind", None) or suggested_kind(tournament)
        count = tournament.stages.count()
        order = fields.pop("order", None) or count + 1
        if not 1 <= order <= count + 1:
            raise _invalid(
                "order",
                _("The tournament has %(count)s stages: a new one goes at place 1 to %(last)s.")
                % {"count": count, "last": count + 1},
            )
        stage = Stage(tournament=tournament, kind=kind, order=order)
        for field, value in {**stage_defaults(kind), **fields}.items():
            setattr(stage, field, value)
        _check(stage)
        if order <= count:
            _shift(tournament, first=order, last=count, by=1)
        stage.save()
        record(
            Action.STAGE_CREATED,
            user,
            stage=stage,
            settings={field: _json(getattr(stage, field)) for field in STAGE_FIELDS},
        )
    return stage


def frozen_stage_fields(stage: Stage) -> dict[str, str]:
    """The stage's settings that can no longer change, each with the reason."""
    reasons: dict[str, str] = {}
    if stage.status == Stage.Status.REGISTRATION_CLOSED:
        pairing = _(
            "Registration is closed: the draw is made from the entrant list and these settings. "
            "Reopen registration to change them."
        )
        reasons.update(dict.fromkeys(PAIRING_FIELDS, pairing))
    elif stage.is_drawn:
        pairing = _("The stage is drawn: its groups were made with these settings.")
        reasons.update(dict.fromkeys(PAIRING_FIELDS, pairing))
        place = _("The stage is drawn: its kind and place in the tournament are final.")
        reasons.update(dict.fromkeys(PLACE_FIELDS, place))
        server = _("The stage is drawn: its games are played under these settings.")
        reasons.update(dict.fromkeys(SERVER_FIELDS, server))
    if "order" not in reasons and _drawing(stage):
        reasons["order"] = _("A draw of this stage is running; wait until it ends.")
    if stage.status == Stage.Status.CLOSED:
        reasons.update(
            dict.fromkeys(PLAY_FIELDS, _("The stage is closed: its play period is over."))
        )
    if AuditEvent.objects.filter(action=Action.QUALIFICATION_CONFIRMED, stage_id=stage.pk).exists():
        reason = _(
            "The qualification is confirmed: the next stage has its entrants, so the rule can "
            "no longer change."
        )
        reasons.update(dict.fromkeys(QUALIFICATION_FIELDS, reason))
    return reasons


def update_stage(user: Actor, stage: Stage, **changes: Any) -> Stage:
    """Change a stage's settings (organizers); a frozen one is refused with the reason.

    Fields not in ``changes``, or sent with their current value, stay as they are. A new
    ``order`` moves the stage there and the stages in between one place (none may be drawn).
    """
    require_organizer(user, stage.tournament)
    _known(changes, STAGE_FIELDS)
    with transaction.atomic():
        stage = locked(stage)
        changed = _changed(stage, changes)
        if not changed:
            return stage
        _refuse_frozen(changed, frozen_stage_fields(stage))
        for field, (_old, new) in changed.items():
            if field != "order":
                setattr(stage, field, new)
        _check(stage)
        if "order" in changed:
            _move_to(stage, changes["order"])
        stage.save(update_fields=list(changed))
        record(
            Action.STAGE_UPDATED,
            user,
            stage=stage,
            changes={field: [_json(old), _json(new)] for field, (old, new) in changed.items()},
        )
    return stage


def delete_stage(user: Actor, stage: Stage) -> None:
    """Remove a stage that is not drawn (organizers), with its entries (the entrants stay in
    the tournament); the stages after it move one place up."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        if stage.is_drawn:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "The %(stage)s is %(status)s: its groups and games exist, so it can no "
                    "longer be deleted."
                )
                % {"stage": _stage_name(stage), "status": stage.get_status_display().lower()},
            )
        if _drawing(stage):
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("A draw of the %(stage)s is running; wait until it ends.")
                % {"stage": _stage_name(stage)},
            )
        tournament = stage.tournament
        last = tournament.stages.count()
        record(
            Action.STAGE_DELETED,
            user,
            stage=stage,
            kind=stage.kind,
            order=stage.order,
            status=stage.status,
        )
        order = stage.order
        stage.delete()
        if order < last:
            _shift(tournament, first=order + 1, last=last, by=-1)


# ---------------------------------------------------------------------------
# Status
# ---------------------------------------------------------------------------


def locked(stage: Stage) -> Stage:
    """The stage again, with its tournament, both locked for update until the end of the
    transaction: the tournament first, then the stage, in two statements (the lock order of
    ``apps.core.locking``; one joined statement would lock them in the plan's order)."""
    tournament_id = (
        stage.tournament_id
        if stage.tournament_id is not None
        else Stage.objects.filter(pk=stage.pk).values_list("tournament_id", flat=True).get()
    )
    list(
        Tournament.objects.select_for_update(no_key=True).filter(pk=tournament_id).values_list("pk")
    )
    return (
        Stage.objects.select_related("tournament")
        .select_for_update(no_key=True, of=("self",))
        .get(pk=stage.pk)
    )


def move(stage: Stage, status: str, doing: str) -> None:
    """Move the stage to ``status`` or refuse; ``doing`` names the action (translated).

    The one place a stage's status changes: the caller saves the stage in its transaction.
    """
    if not stage.can_move_to(status):
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Cannot %(action)s: the stage is %(status)s.")
            % {"action": doing, "status": stage.get_status_display().lower()},
        )
    stage.status = status


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _stage_name(stage: Stage) -> str:
    return _("%(kind)s (stage %(order)s)") % {
        "kind": stage.get_kind_display(),
        "order": stage.order,
    }


def _drawing(stage: Stage) -> bool:
    return stage.draw_jobs.filter(status__in=DRAWING).exists()


def _known(values: dict, fields: tuple[str, ...]) -> None:
    unknown = set(values) - set(fields)
    if unknown:
        raise TypeError(f"not a setting: {', '.join(sorted(unknown))}")


def _changed(instance: models.Model, changes: dict) -> dict[str, tuple[object, object]]:
    """``{field: (old, new)}`` for the fields whose value really changes."""
    return {
        field: (getattr(instance, field), new)
        for field, new in changes.items()
        if getattr(instance, field) != new
    }


def _refuse_frozen(changed: dict, frozen: dict[str, str]) -> None:
    refused = [field for field in changed if field in frozen]
    if not refused:
        return
    reasons = list(dict.fromkeys(frozen[field] for field in refused))
    raise ActionError(
        ErrorCode.WRONG_STATUS,
        _("%(fields)s can no longer change. %(reasons)s Nothing was changed.")
        % {"fields": ", ".join(refused), "reasons": " ".join(reasons)},
        details=[{"field": field, "message": frozen[field], "code": "frozen"} for field in refused],
    )


def _check(instance: Tournament | Stage) -> None:
    """Refuse values the model does not take (bounds, choices, settings that do not fit
    together), naming each field."""
    try:
        instance.full_clean(
            exclude=["tournament", "organizers"], validate_unique=False, validate_constraints=False
        )
    except ValidationError as error:
        details = [
            {"field": field, "message": str(message), "code": "invalid"}
            for field, messages in error.message_dict.items()
            for message in messages
        ]
        shown = "; ".join(f"{d['field']}: {d['message']}" for d in details)
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The settings are not valid — %(errors)s") % {"errors": shown},
            details=details,
        ) from error


def _invalid(field: str, message: str) -> ActionError:
    return ActionError(
        ErrorCode.INVALID_INPUT,
        message,
        details=[{"field": field, "message": message, "code": "invalid"}],
    )


def _slug_taken(slug: str) -> ActionError:
    message = _(
        "Another tournament has the address %(slug)r; choose another slug, or leave it empty to "
        "have one made from the name."
    ) % {"slug": slug}
    return ActionError(
        ErrorCode.INVALID_INPUT,
        message,
        details=[{"field": "slug", "message": message, "code": "unique"}],
    )


def _shift(tournament: Tournament, *, first: int, last: int, by: int) -> None:
    """Move the stages at places ``first``..``last`` by ``by`` places (±1); none may be drawn.

    One at a time, in the order that never puts two stages on one place.
    """
    stages = list(
        Stage.objects.select_for_update(no_key=True)
        .filter(tournament=tournament, order__gte=first, order__lte=last)
        .order_by("order" if by < 0 else "-order")
    )
    for other in stages:
        if other.is_drawn:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "The %(stage)s is drawn and keeps its place, so the stages cannot be "
                    "reordered this way."
                )
                % {"stage": _stage_name(other)},
            )
        other.order += by
        other.save(update_fields=["order"])


def _move_to(stage: Stage, order: int) -> None:
    """Put ``stage`` at place ``order``, moving the stages in between by one place."""
    count = Stage.objects.filter(tournament_id=stage.tournament_id).count()
    if not 1 <= order <= count:
        raise _invalid(
            "order",
            _("The tournament has %(count)s stages: choose a place from 1 to %(count)s.")
            % {"count": count},
        )
    old = Stage.objects.filter(pk=stage.pk).values_list("order", flat=True).get()
    # Out of the way first (0 is never a stage's place), then the others, then the stage.
    Stage.objects.filter(pk=stage.pk).update(order=0)
    if order < old:
        _shift(stage.tournament, first=order, last=old - 1, by=1)
    else:
        _shift(stage.tournament, first=old + 1, last=order, by=-1)
    stage.order = order


def _json(value: Any) -> Any:
    """A setting's value as the audit trail stores it (JSON)."""
    if isinstance(value, Decimal):
        return str(int(value)) if value == value.to_integral() else str(value.normalize())
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value
