"""Registration by players, approved by organizers: the actions (docs/registration.md).

- :func:`register`: a signed-in player asks to enter a stage open to players. The details
  obey the entrant rules; the stage's eligibility rules (``registration_rules``) refuse a
  request that breaks any (422, each broken rule said). While the field has room (entrants
  of the stage and pending requests, against ``max_field``) the request waits for approval;
  then it goes to the reserve list, in order of registration.
- :func:`withdraw`: the player takes back their request (an approved one: their entry
  leaves the stage) until registration closes.
- :func:`decide`: organizers approve (each becomes an entrant of the stage and the
  tournament, linked to the player's account) or reject (with a reason) one or many pending
  requests (reserve ones may be rejected too), all or none.

Whenever a place frees (a withdrawal, a rejection), the first on the reserve list moves up
to wait for approval. Every action locks the stage first (``apps.stages.services.locked``),
so two requests for the last place give one place and one reserve. Each change is audited
and e-mails the player once it commits (``tasks.registration_changed``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Max, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, is_organizer, require_organizer, require_signed_in
from apps.entrants import services as entrants
from apps.entrants.fields import invalid_fields
from apps.entrants.models import Entrant, StageEntry
from apps.entrants.people import link_people
from apps.silli.entrants import check_fields
from apps.stages.models import Stage
from apps.stages.services import locked

from . import registration_rules as rules
from .models import Registration

# The most requests one decision takes, and the longest reason.
MOST_DECIDED = 1000
REASON_MAX_LENGTH = 200
# A request's fields by the entrant fields they become.
REQUEST_FIELDS = {"nation": "federation", "person": "rating_list_id"}


class Decision:
    APPROVE = "approve"
    REJECT = "reject"
    CHOICES = (APPROVE, REJECT)


def _notify(registration: Registration, event_id: int) -> None:
    """E-mail the player about the change ``event_id`` once it commits."""
    from . import tasks

    transaction.on_commit(lambda: tasks.registration_changed.delay(registration.pk, event_id))


def _audit(action: Action, actor: Actor | None, registration: Registration, **data: Any) -> int:
    event = record(
        action,
        actor,
        stage=registration.stage,
        registration=registration.pk,
        player=registration.user_id,
        status=registration.status,
        position=registration.position,
        **data,
    )
    _notify(registration, event.pk)
    return event.pk


def places_taken(stage: Stage) -> int:
    """The places of the field taken: the stage's entrants and the requests waiting for
    approval (read under the stage's lock when deciding)."""
    entries = StageEntry.objects.filter(stage=stage, withdrawn_at__isnull=True).count()
    pending = Registration.objects.filter(stage=stage, status=Registration.Status.PENDING).count()
    return entries + pending


def has_room(stage: Stage) -> bool:
    return stage.max_field is None or places_taken(stage) < stage.max_field


def _require_open(stage: Stage) -> None:
    reason = rules.closed_reason(stage, timezone.localdate())
    if reason:
        raise ActionError(ErrorCode.WRONG_STATUS, reason)


def _checked_details(
    *, name: str, federation: str, rating_list_id: str, rating: int | str | None, email: str
) -> dict[str, Any]:
    """The request's details by the entrant rules (trimmed; the federation in upper case);
    every bad field listed. The contact e-mail is required: the answers go there."""
    values = {
        "name": name,
        "nation": federation,
        "rating": rating,
        "person": rating_list_id,
        "email": email,
    }
    checked, problems = check_fields(values)
    if problems:
        refusal = invalid_fields(problems)
        for detail in refusal.details:  # named as the request names them
            detail["field"] = REQUEST_FIELDS.get(detail.get("field", ""), detail.get("field"))
        raise refusal
    if not checked["email"]:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("Give a contact e-mail address: the organizers' answer is sent there."),
            [{"field": "email", "message": _("required"), "code": "required"}],
        )
    return checked


def register(
    stage: Stage,
    *,
    actor: Actor,
    name: str,
    federation: str,
    rating_list_id: str = "",
    rating: int | str | None = None,
    email: str,
) -> Registration:
    """Ask, as the signed-in ``actor``, to enter ``stage``: pending while the field has
    room, else on the reserve list. Refused (nothing written) when the stage takes no
    requests now (409), the details are bad (400), the player already has an active request
    or an entry in the stage (409), or a rule of the stage is broken (422). When the stage's
    rating band is on a list the office holds, the request's rating is the one on that list
    for the player's ID (none: not on it), not ``rating``."""
    user = require_signed_in(actor)
    checked = _checked_details(
        name=name, federation=federation, rating_list_id=rating_list_id, rating=rating, email=email
    )
    with transaction.atomic():
        stage = locked(stage)
        _require_open(stage)
        if Registration.objects.filter(
            stage=stage, user=user, status__in=Registration.ACTIVE
        ).exists():
            raise ActionError(
                ErrorCode.CONFLICT,
                _(
                    "You have already registered for this stage; see My registrations, where "
                    "you can also withdraw."
                ),
            )
        if Entrant.objects.filter(user=user, stage_entries__stage=stage).exists():
            raise ActionError(ErrorCode.CONFLICT, _("You are already an entrant of this stage."))
        found = rules.rated(stage, rating_list_id=checked["person"], rating=checked["rating"])
        broken = rules.failed(
            rules.eligibility(
                stage,
                federation=checked["nation"],
                rating=checked["rating"],
                rating_list_id=checked["person"],
                rating_list=found.rating_list,
            )
        )
        if broken:
            raise ActionError(
                ErrorCode.NOT_ELIGIBLE,
                " ".join(check.message for check in broken),
                [{"rule": str(check.rule), "message": check.message} for check in broken],
            )
        last = Registration.objects.filter(stage=stage).aggregate(last=Max("position"))["last"]
        registration = Registration.objects.create(
            stage=stage,
            user=user,
            name=checked["name"],
            federation=checked["nation"],
            rating_list_id=checked["person"],
            rating=found.rating,
            email=checked["email"],
            status=Registration.Status.PENDING if has_room(stage) else Registration.Status.RESERVE,
            position=(last or 0) + 1,
        )
        _audit(Action.PLAYER_REGISTERED, user, registration)
    return registration


def _locked_registration(registration_id: int) -> Registration:
    return Registration.objects.select_for_update(no_key=True).get(pk=registration_id)


def move_up_reserves(stage: Stage, actor: Actor | None) -> list[Registration]:
    """While the field has room, the first on the reserve list (in order of registration)
    moves up to wait for approval; call with the stage locked, inside the action."""
    moved: list[Registration] = []
    if not stage.open_registration:
        return moved
    reserves = Registration.objects.filter(stage=stage, status=Registration.Status.RESERVE)
    while has_room(stage):
        first = reserves.select_for_update(no_key=True).order_by("position").first()
        if first is None:
            break
        first.status = Registration.Status.PENDING
        first.save(update_fields=["status", "updated_at"])
        _audit(Action.PLAYER_REGISTRATION_MOVED_UP, actor, first)
        moved.append(first)
    return moved


def withdraw(registration: Registration, *, actor: Actor) -> Registration:
    """The player takes back their request until registration closes; an approved one's entry
    leaves the stage (and the tournament, if nothing else refers to it). A place freed goes
    to the first on the reserve list."""
    user = require_signed_in(actor)
    if registration.user_id != user.pk:
        raise ActionError(ErrorCode.NOT_FOUND, _("You have no such registration."))
    with transaction.atomic():
        stage = locked(registration.stage)
        registration = _locked_registration(registration.pk)
        if not registration.is_active:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("This registration is %(status)s already; there is nothing to withdraw.")
                % {"status": registration.get_status_display()},
            )
        _require_open(stage)
        data: dict[str, Any] = {"was": registration.status}
        if registration.status == Registration.Status.APPROVED and registration.entrant:
            code = registration.entrant.code
            _gone, left = entrants.take_off_list(stage, code)
            data.update(entrant=code, left_tournament=left)
        registration.status = Registration.Status.WITHDRAWN
        registration.entrant = None
        registration.save(update_fields=["status", "entrant", "updated_at"])
        _audit(Action.PLAYER_REGISTRATION_WITHDRAWN, user, registration, **data)
        move_up_reserves(stage, user)
    return registration


def _reason(reason: str, decision: str) -> str:
    reason = (reason or "").strip()
    if "\x00" in reason or any(c in reason for c in "\r\n"):
        raise ActionError(
            ErrorCode.INVALID_INPUT, _("Write the reason on one line, without control characters.")
        )
    if len(reason) > REASON_MAX_LENGTH:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The reason is longer than %(limit)s characters; shorten it.")
            % {"limit": REASON_MAX_LENGTH},
        )
    if decision == Decision.REJECT and not reason:
        raise ActionError(
            ErrorCode.INVALID_INPUT, _("Give the reason for the rejection: the player reads it.")
        )
    return reason


def _ids(ids: Iterable[Any]) -> list[int]:
    try:
        wanted = sorted({int(i) for i in ids})
    except (TypeError, ValueError) as exc:
        raise ActionError(
            ErrorCode.INVALID_INPUT, _("The requests are given by their numbers (ids).")
        ) from exc
    if not wanted:
        raise ActionError(ErrorCode.INVALID_INPUT, _("Choose at least one request."))
    if len(wanted) > MOST_DECIDED:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("At most %(limit)s requests can be decided at once.") % {"limit": MOST_DECIDED},
        )
    return wanted


def decide(
    stage: Stage, ids: Iterable[Any], decision: str, reason: str = "", *, actor: Actor
) -> list[Registration]:
    """Approve or reject the requests ``ids`` of ``stage`` (organizers), all or none.

    Approving makes each pending request an entrant of the stage (and of the tournament), its
    account the player's and its person the rating-list ID (``apps.entrants.services
    .add_entrant``: the entrant rules and the audit of an added entrant). Rejecting needs a
    reason and takes pending or reserve requests. Refused with every request that cannot be
    decided so listed (409), or for unknown ids (404)."""
    user = require_organizer(actor, stage.tournament)
    if decision not in Decision.CHOICES:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The decision is approve or reject."),
            [{"field": "decision"}],
        )
    reason = _reason(reason, decision)
    wanted = _ids(ids)
    with transaction.atomic():
        stage = locked(stage)
        if stage.status != Stage.Status.DRAFT:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("Registration for this stage is closed: its requests can no longer be decided."),
            )
        found = list(
            Registration.objects.select_for_update(no_key=True)
            .filter(stage=stage, pk__in=wanted)
            .order_by("position")
        )
        missing = sorted(set(wanted) - {r.pk for r in found})
        if missing:
            raise ActionError(
                ErrorCode.NOT_FOUND,
                _("This stage has no requests numbered %(ids)s.")
                % {"ids": ", ".join(map(str, missing))},
            )
        takes = (
            (Registration.Status.PENDING,)
            if decision == Decision.APPROVE
            else (Registration.Status.PENDING, Registration.Status.RESERVE)
        )
        wrong = [r for r in found if r.status not in takes]
        if wrong:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                ngettext(
                    "%(count)s request cannot be %(done)s: %(list)s. Nothing was changed.",
                    "%(count)s requests cannot be %(done)s: %(list)s. Nothing was changed.",
                    len(wrong),
                )
                % {
                    "count": len(wrong),
                    "done": _("approved") if decision == Decision.APPROVE else _("rejected"),
                    "list": "; ".join(f"{r.name} ({r.get_status_display()})" for r in wrong),
                },
                [{"id": r.pk, "status": r.status} for r in wrong],
            )
        now = timezone.now()
        for registration in found:
            if decision == Decision.APPROVE:
                _approve(user, stage, registration, reason, now)
            else:
                _reject(user, registration, reason, now)
        move_up_reserves(stage, user)
    return found


def _approve(user: Actor, stage: Stage, registration: Registration, reason: str, now) -> None:
    entry = entrants.add_entrant(
        user,
        stage,
        name=registration.name,
        nation=registration.federation,
        rating=registration.rating,
        person=registration.rating_list_id,
        email=registration.email,
    )
    Entrant.objects.filter(pk=entry.entrant_id).update(user=registration.user)
    # The entry is the account's now: tie it to the account's person (their profile), as a
    # claim does.
    link_people(Entrant.objects.filter(pk=entry.entrant_id))
    registration.status = Registration.Status.APPROVED
    registration.entrant_id = entry.entrant_id
    registration.reason = reason
    registration.decided_at = now
    registration.save(update_fields=["status", "entrant", "reason", "decided_at", "updated_at"])
    _audit(
        Action.PLAYER_REGISTRATION_APPROVED,
        user,
        registration,
        entrant=entry.entrant.code,
        reason=reason,
    )


def _reject(user: Actor, registration: Registration, reason: str, now) -> None:
    registration.status = Registration.Status.REJECTED
    registration.reason = reason
    registration.decided_at = now
    registration.save(update_fields=["status", "reason", "decided_at", "updated_at"])
    _audit(Action.PLAYER_REGISTRATION_REJECTED, user, registration, reason=reason)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def registrations_seen_by(user: Actor, stage: Stage) -> QuerySet[Registration]:
    """A stage's requests: all of them for its organizers, one's own for a player."""
    rows = Registration.objects.filter(stage=stage).select_related("entrant", "stage__tournament")
    if is_organizer(user, stage.tournament):
        return rows.order_by("position")
    if not user.is_authenticated:
        return rows.none()
    return rows.filter(user=user).order_by("position")


def reserve_place(registration: Registration) -> int | None:
    """A reserve request's place on the reserve list (1: next to move up); None otherwise."""
    if registration.status != Registration.Status.RESERVE:
        return None
    return (
        Registration.objects.filter(
            stage_id=registration.stage_id,
            status=Registration.Status.RESERVE,
            position__lt=registration.position,
        ).count()
        + 1
    )
