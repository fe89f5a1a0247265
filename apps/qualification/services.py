"""Qualification from one stage to the next: the preview the organizer checks, the changes
they may make (pre-qualified entrants, qualifiers who decline) and the confirmation that
fills the next stage.

The rules themselves are the pure ``apps.scoring.qualification`` module; this service
feeds it the stage's stored standings (with the earlier stages' results as fallback keys
and for cumulative loss caps).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer
from apps.entrants.models import Entrant, StageEntry
from apps.entrants.services import engine_entrants
from apps.groups.models import Group
from apps.scoring import qualification as q
from apps.scoring.points import points_text
from apps.silli.entrants import entrants_digest
from apps.stages.feasibility import QUALIFIERS, require_drawable, stage_feasibility
from apps.stages.feasibility import message as feasibility_message
from apps.stages.models import Stage
from apps.stages.services import locked, move
from apps.standings.fallback import fallback_keys, points_lost_before
from apps.standings.freshness import stage_pending
from apps.standings.groups import chain, stage_games_per_player
from apps.standings.models import GroupStanding

from .models import Adjustment

# How many reserves the preview lists (per group for top_per_group).
RESERVES = 5


def rule_spec(stage: Stage) -> q.RuleSpec | None:
    """The stage's qualification rule, or None when it has none (a final)."""
    if not stage.qualify_rule or stage.qualify_value is None:
        return None
    return q.RuleSpec(
        q.Rule(stage.qualify_rule),
        Fraction(str(stage.qualify_value)),
        relative=stage.qualify_relative,
        points_win=Fraction(str(stage.tournament.points_win)),
        reserves=RESERVES,
    )


def describe_rule(stage: Stage) -> str:
    """The rule in a sentence, e.g. "the top 20 % of each group (rounded half up)"."""
    spec = rule_spec(stage)
    if spec is None:
        return _("No qualification rule is set.")
    value = points_text(spec.value)
    if spec.rule is q.Rule.THRESHOLD:
        if spec.relative:
            return _("%(value)s of the games' points or more (share of T)") % {"value": value}
        return _("%(value)s points or more") % {"value": value}
    if spec.rule is q.Rule.LOSS_CAP:
        return _("at most %(value)s points lost over this and the earlier stages") % {
            "value": value
        }
    if spec.rule is q.Rule.TOP_PER_GROUP:
        if spec.relative:
            return _("the top %(value)s %% of each group (rounded half up)") % {"value": value}
        return _("the top %(value)s of each group") % {"value": value}
    if spec.relative:
        return _("the top %(value)s %% of the unified ranking (rounded half up)") % {"value": value}
    return _("the top %(value)s of the unified ranking") % {"value": value}


def lot_seed(stage: Stage) -> str:
    """The seed of the lot at the cut: the stage's own, else its draw's seed."""
    return stage.lot_seed or stage.seed


def next_stage(stage: Stage) -> Stage | None:
    return Stage.objects.filter(tournament_id=stage.tournament_id, order=stage.order + 1).first()


def _fraction(value: Decimal) -> Fraction:
    return Fraction(str(value))


def candidates(stage: Stage) -> list[q.Candidate]:
    """Every entrant of the stage's groups, from the stored standings."""
    tournament = stage.tournament
    keys = [k.value for k in chain(tournament)]
    rows = list(
        GroupStanding.objects.filter(group__stage=stage).values_list(
            "entrant_id",
            "entrant__code",
            "group__number",
            "group__size",
            "points",
            "finished",
            "figures",
        )
    )
    ids = [row[0] for row in rows] if stage.order > 1 else None
    fallback = fallback_keys(stage, chain(tournament), ids) if ids else {}
    lost = points_lost_before(stage, tournament.points_win, ids) if ids else {}
    withdrawn = set(
        StageEntry.objects.filter(stage=stage, withdrawn_at__isnull=False).values_list(
            "entrant_id", flat=True
        )
    )
    declined = set(
        Adjustment.objects.filter(stage=stage, kind=Adjustment.Kind.DECLINED).values_list(
            "entrant_id", flat=True
        )
    )
    games: dict[int, int] = {}
    result = []
    for entrant_id, code, number, size, points, finished, figures in rows:
        if size not in games:
            games[size] = stage_games_per_player(stage, Group(size=size))
        result.append(
            q.Candidate(
                id=entrant_id,
                group=number,
                group_size=size,
                games_per_player=games[size],
                points=_fraction(points),
                finished=finished,
                key=tuple(Decimal(figures[k]) for k in keys) + fallback.get(entrant_id, ()),
                earlier_lost=_fraction(lost.get(entrant_id, Decimal(0))),
                withdrawn=entrant_id in withdrawn,
                declined=entrant_id in declined,
                figures={k: figures[k] for k in keys},
                name=code,
            )
        )
    return result


@dataclass
class Preview:
    """Everything the organizer checks before confirming."""

    stage: Stage
    next_stage: Stage | None
    rule: str
    seed: str
    outcome: q.Outcome | None
    entrants: dict[int, Entrant]
    prequalified: list[Adjustment]
    declined: list[Adjustment]
    blockers: list[str] = field(default_factory=list)
    confirmed: bool = False
    # persons holding more places than the next stage will have groups: (groups, entries)
    crowded: list[tuple[int, list[Entrant]]] = field(default_factory=list)
    # the next stage cannot be drawn with this many entrants (also among the blockers)
    draw_problem: str = ""
    # the next stage's draw makes other groups than its smallest group asks for
    draw_note: str = ""

    @property
    def provisional(self) -> bool:
        return self.stage.status != Stage.Status.CLOSED

    @property
    def can_confirm(self) -> bool:
        return not self.blockers and not self.confirmed

    @property
    def qualifier_count(self) -> int:
        return len(self.outcome.qualifiers) if self.outcome else 0

    @property
    def total(self) -> int:
        """Entrants of the next stage after confirming (pre-qualified ones included)."""
        qualified = {d.candidate.id for d in self.outcome.qualifiers} if self.outcome else set()
        return len(qualified | {a.entrant_id for a in self.prequalified})


def preview(stage: Stage) -> Preview:
    """The qualification list as it stands (provisional while the stage is in play)."""
    spec = rule_spec(stage)
    following = next_stage(stage)
    seed = lot_seed(stage)
    outcome = q.qualify(candidates(stage), spec, seed) if spec else None
    adjustments = list(Adjustment.objects.filter(stage=stage).select_related("entrant"))
    ids = {d.candidate.id for d in outcome.decisions} if outcome else set()
    ids |= {a.entrant_id for a in adjustments}
    entrants = Entrant.objects.in_bulk(ids)
    confirmed = bool(following and following.entries.exists())
    blockers = []
    if spec is None:
        blockers.append(_("Set the stage's qualification rule first."))
    if following is None:
        blockers.append(_("The tournament has no next stage to qualify for."))
    if stage.status != Stage.Status.CLOSED:
        blockers.append(_("Close the stage first: qualifiers are final only then."))
    blockers += _pending_standings_blockers(stage)
    if confirmed:
        blockers.append(_("The qualification is confirmed: the next stage has its entrants."))
    crowded = []
    draw_problem = draw_note = ""
    if outcome and following is not None and not confirmed:
        qualified = {d.candidate.id for d in outcome.qualifiers}
        prequalified = {a.entrant_id for a in adjustments if a.kind == Adjustment.Kind.PREQUALIFIED}
        total = len(qualified | prequalified)
        found = stage_feasibility(following, total) if total else None
        if found is not None and not found.ok:
            draw_problem = feasibility_message(found, who=QUALIFIERS) or ""
            blockers.append(draw_problem)
        elif found is not None:
            draw_note = feasibility_message(found, who=QUALIFIERS) or ""
        groups = len(found.sizes) if found is not None and found.sizes else None
        crowded = _crowded(outcome, adjustments, entrants, following, groups)
        blockers += _crowded_blockers(crowded)
    return Preview(
        stage=stage,
        next_stage=following,
        rule=describe_rule(stage),
        seed=seed,
        outcome=outcome,
        entrants=entrants,
        prequalified=[a for a in adjustments if a.kind == Adjustment.Kind.PREQUALIFIED],
        declined=[a for a in adjustments if a.kind == Adjustment.Kind.DECLINED],
        blockers=blockers,
        confirmed=confirmed,
        crowded=crowded,
        draw_problem=draw_problem,
        draw_note=draw_note,
    )


def _pending_standings_blockers(stage: Stage) -> list[str]:
    """Qualifiers come from the stored standings: none while a group's are being updated."""
    pending = stage_pending(stage)
    if not pending.groups:
        return []
    since = date_format(timezone.localtime(pending.since), "DATETIME_FORMAT")
    return [
        ngettext(
            "The standings of %(count)s group are being updated (since %(since)s): the "
            "qualifiers wait for them. Reload in a minute; if they stay behind, recompute them "
            "on the ranking page.",
            "The standings of %(count)s groups are being updated (the oldest since %(since)s): "
            "the qualifiers wait for them. Reload in a minute; if they stay behind, recompute "
            "them on the ranking page.",
            pending.groups,
        )
        % {"count": pending.groups, "since": since}
    ]


def _crowded(
    outcome: q.Outcome,
    adjustments: list[Adjustment],
    entrants: dict,
    following: Stage,
    groups: int | None = None,
) -> list[tuple[int, list[Entrant]]]:
    """One person's entries must sit in different groups: the persons holding more places
    than the next stage will have groups (``groups``: as its division makes them, when
    known), each as (groups, their entries best first)."""
    qualified = [entrants[d.candidate.id] for d in outcome.qualifiers]
    ids = {e.pk for e in qualified}
    held = qualified + [
        a.entrant
        for a in adjustments
        if a.kind == Adjustment.Kind.PREQUALIFIED and a.entrant_id not in ids
    ]
    if groups is None:
        groups = max(1, len(held) // following.min_group_size)
    places: dict[str, list[Entrant]] = {}
    for entrant in held:
        places.setdefault(entrant.person, []).append(entrant)
    return [(groups, entries) for entries in places.values() if len(entries) > groups]


def _crowded_blockers(crowded: list[tuple[int, list[Entrant]]]) -> list[str]:
    return [
        _(
            "Person %(person)s holds %(count)s places (%(codes)s) but the next stage will have "
            "%(groups)s group(s): let one entry decline."
        )
        % {
            "person": entries[0].person,
            "count": len(entries),
            "codes": ", ".join(e.code for e in entries),
            "groups": groups,
        }
        for groups, entries in crowded
    ]


def decline_extra_entries(user: Actor, stage: Stage, reason: str) -> list[Adjustment]:
    """For every person holding more places than the next stage will have groups, the
    lower entries decline (the next reserves take their places, which may again need it)."""
    declined: list[Adjustment] = []
    while True:
        result = preview(stage)
        extra = [entry for groups, entries in result.crowded for entry in entries[groups:]]
        qualifiers = {d.candidate.id for d in result.outcome.qualifiers} if result.outcome else ()
        extra = [e for e in extra if e.pk in qualifiers]
        if not extra:
            return declined
        declined += [decline(user, stage, code=e.code, reason=reason) for e in extra]


def _open_stage(stage: Stage) -> Stage:
    """The stage, locked, while its qualification can still change."""
    stage = locked(stage)
    if stage.status not in (Stage.Status.PUBLISHED, Stage.Status.CLOSED):
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Qualification starts once the stage is in play; it is %(status)s.")
            % {"status": stage.get_status_display().lower()},
        )
    following = next_stage(stage)
    if following is not None and following.entries.exists():
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("The qualification is confirmed already: the next stage has its entrants."),
        )
    return stage


def set_rule(
    user: Actor, stage: Stage, *, rule: str, value: object, relative: bool = False, seed: str = ""
) -> Stage:
    """Set how the stage's entrants qualify for the next one (before confirming)."""
    require_organizer(user, stage.tournament)
    if rule and rule not in Stage.QualifyRule.values:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("%(rule)r is not a qualification rule.") % {"rule": rule},
        )
    try:
        if rule:
            exact = Fraction(str(value))
            q.RuleSpec(q.Rule(rule), exact, relative=relative)
            value = Decimal(exact.numerator) / exact.denominator
        else:
            value = None
    except (ArithmeticError, ValueError) as error:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The rule's value is not valid: %(error)s") % {"error": error},
        ) from error
    with transaction.atomic():
        stage = locked(stage)
        following = next_stage(stage)
        if following is not None and following.entries.exists():
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("The qualification is confirmed already; its rule can no longer change."),
            )
        stage.qualify_rule, stage.qualify_value = rule, value
        stage.qualify_relative = bool(rule) and relative
        stage.lot_seed = seed.strip()
        stage.save(update_fields=["qualify_rule", "qualify_value", "qualify_relative", "lot_seed"])
        record(
            Action.QUALIFICATION_RULE_SET,
            user,
            stage=stage,
            rule=rule,
            value=str(value) if value is not None else None,
            relative=stage.qualify_relative,
            lot_seed=stage.lot_seed,
        )
    return stage


def add_prequalified(
    user: Actor,
    stage: Stage,
    *,
    code: str,
    reason: str,
    name: str = "",
    nation: str = "",
    rating: int | None = None,
    email: str = "",
) -> Adjustment:
    """Add an entrant to the next stage without qualifying through this one (e.g. a finalist
    of an earlier Cup). An unknown code creates the entrant from the details given."""
    require_organizer(user, stage.tournament)
    code, reason, name, nation = code.strip(), reason.strip(), name.strip(), nation.strip().upper()
    if not code or not reason:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("Give the entrant's code and the reason they are pre-qualified."),
        )
    with transaction.atomic():
        stage = _open_stage(stage)
        entrant = Entrant.objects.filter(tournament_id=stage.tournament_id, code=code).first()
        if entrant is None:
            if not name or len(nation) != 3:
                raise ActionError(
                    ErrorCode.INVALID_INPUT,
                    _(
                        "No entrant has the code %(code)s; give a name and a three-letter "
                        "nation to register them."
                    )
                    % {"code": code},
                )
            entrant = Entrant.objects.create(
                tournament=stage.tournament,
                code=code,
                name=name,
                nation=nation,
                rating=rating,
                person=code,
                email=email.strip(),
            )
        if Adjustment.objects.filter(stage=stage, entrant=entrant).exists():
            raise ActionError(
                ErrorCode.CONFLICT,
                _("%(name)s is on the list of changes already.") % {"name": entrant.name},
            )
        adjustment = Adjustment.objects.create(
            stage=stage,
            entrant=entrant,
            kind=Adjustment.Kind.PREQUALIFIED,
            reason=reason,
            created_by=user if user.is_authenticated else None,
        )
        record(
            Action.QUALIFICATION_PREQUALIFIED,
            user,
            stage=stage,
            entrant=entrant.code,
            name=entrant.name,
            reason=reason,
        )
    return adjustment


def decline(user: Actor, stage: Stage, *, code: str, reason: str) -> Adjustment:
    """Record that an entrant of the stage declines to go on; the next reserve takes the place."""
    require_organizer(user, stage.tournament)
    code, reason = code.strip(), reason.strip()
    if not reason:
        raise ActionError(ErrorCode.INVALID_INPUT, _("Give a reason (e.g. the player's message)."))
    with transaction.atomic():
        stage = _open_stage(stage)
        entry = (
            StageEntry.objects.filter(stage=stage, entrant__code=code)
            .select_related("entrant")
            .first()
        )
        if entry is None:
            raise ActionError(
                ErrorCode.NOT_FOUND,
                _("No entrant of this stage has the code %(code)s.") % {"code": code},
            )
        if Adjustment.objects.filter(stage=stage, entrant=entry.entrant).exists():
            raise ActionError(
                ErrorCode.CONFLICT,
                _("%(name)s is on the list of changes already.") % {"name": entry.entrant.name},
            )
        adjustment = Adjustment.objects.create(
            stage=stage,
            entrant=entry.entrant,
            kind=Adjustment.Kind.DECLINED,
            reason=reason,
            created_by=user if user.is_authenticated else None,
        )
        record(
            Action.QUALIFICATION_DECLINED,
            user,
            stage=stage,
            entrant=entry.entrant.code,
            name=entry.entrant.name,
            reason=reason,
        )
    return adjustment


def confirm(user: Actor, stage: Stage) -> Stage:
    """Confirm the qualifiers: the next stage gets them (and the pre-qualified entrants) as
    its entrants, its registration closes with their digest, and it is ready to draw."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = _open_stage(stage)
        following = (
            Stage.objects.select_for_update(no_key=True)
            .filter(tournament_id=stage.tournament_id, order=stage.order + 1)
            .first()
        )
        result = preview(stage)
        if following is not None and following.status != Stage.Status.DRAFT:
            result.blockers.append(
                _("The next stage is %(status)s, not open for entrants.")
                % {"status": following.get_status_display().lower()}
            )
        if result.draw_problem and following is not None and stage.status == Stage.Status.CLOSED:
            # The next stage's draw stands in the way: said with its own code (and whatever
            # else stands in the way with it).
            try:
                require_drawable(following, result.total, who=QUALIFIERS, field="qualify_value")
            except ActionError as error:
                error.message = " ".join(result.blockers)
                error.args = (error.message,)
                raise
        if result.blockers:
            raise ActionError(ErrorCode.WRONG_STATUS, " ".join(result.blockers))
        outcome = result.outcome
        assert outcome is not None  # no blockers: the stage has a rule, so an outcome
        assert following is not None  # no blockers: there is a next stage
        qualified = {d.candidate.id: d.reason for d in outcome.qualifiers}
        entries = [
            StageEntry(
                stage=following,
                entrant_id=entrant_id,
                source=StageEntry.Source.QUALIFIED,
                reason=reason[:200],
            )
            for entrant_id, reason in qualified.items()
        ]
        entries += [
            StageEntry(
                stage=following,
                entrant_id=a.entrant_id,
                source=StageEntry.Source.PREQUALIFIED,
                reason=a.reason,
            )
            for a in result.prequalified
            if a.entrant_id not in qualified
        ]
        StageEntry.objects.bulk_create(entries)
        following.entrants_digest = entrants_digest(engine_entrants(following))
        move(following, Stage.Status.REGISTRATION_CLOSED, _("close registration"))
        following.registration_closed_at = timezone.now()
        following.save(update_fields=["status", "entrants_digest", "registration_closed_at"])
        record(
            Action.QUALIFICATION_CONFIRMED,
            user,
            stage=stage,
            next_stage=following.pk,
            qualified=len(qualified),
            prequalified=len(entries) - len(qualified),
            declined=len(result.declined),
            lot_seed=result.seed,
            lot_used=outcome.lot_used,
            digest=following.entrants_digest,
        )
    return following
