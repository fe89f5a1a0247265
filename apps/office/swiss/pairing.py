"""Pairing a Swiss stage's next round.

The draw pairs round 1 (``apps.silli.swiss_system``). Each later round is paired by
:func:`pair_next_round` — one action, one transaction — from the stage's state
(:mod:`.state`). The organizer asks for the next round (:func:`start_next_round`: checked at
once, then queued); so does the last result of a round (:func:`pair_when_round_complete`) and
a round's deadline in a stage that adjudicates (:mod:`.deadlines`). The Celery task
(``tasks.pair_swiss_round``) runs :func:`pair_next_round` for that round number, so a repeated
request or a redelivered task finds the round paired and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.groups.rounds import applied_virtual_points, start_round
from apps.notifications import tasks as notify
from apps.play.services import start_play
from apps.silli.swiss.dutch import Pairing, PairingError
from apps.silli.swiss_system import colour_of_rule, pair_next, round_virtual_points
from apps.stages.models import Stage
from apps.stages.services import locked
from apps.standings.freshness import schedule_recomputes

from . import tasks
from .state import SwissState, require_open_group, swiss_state


@dataclass(frozen=True)
class RoundOutcome:
    """What :func:`pair_next_round` did: the round, its games and bye, or nothing new."""

    round: int
    games: int
    bye: str | None
    created: bool


def _check_can_pair(state: SwissState, round_number: int | None) -> int:
    """The round to pair next; an ActionError says why none can be."""
    require_open_group(
        state,
        _(
            "The next round is paired once the stage is drawn and published; this stage is "
            "%(status)s."
        ),
        _("The group is closed; reopen it to pair another round."),
    )
    if state.complete:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("All %(rounds)s rounds are paired.") % {"rounds": state.rounds},
        )
    if state.open_games and not state.adjudicating:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _(
                "Round %(round)s still has %(open)s game(s) without a result; the next round "
                "is paired when every game of this one has one."
            )
            % {"round": state.paired, "open": state.open_games},
        )
    return state.paired + 1


def start_next_round(user: Actor, stage: Stage, *, adjudicate_open: bool = False) -> int:
    """Ask for the stage's next round (organizers): checked now, paired by a Celery task
    after the commit. Returns the round's number.

    ``adjudicate_open``: in a stage whose rounds wait for the TD at the deadline (``td``),
    once the current round's deadline has passed, first send its unfinished games to
    adjudication, as an ``adjudicate`` deadline would have (for pairing they count as draws
    until their results are entered) — in the same transaction, audited."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        state = swiss_state(stage, lock=adjudicate_open)
        if adjudicate_open:
            _send_open_games_to_adjudication(user, state)
        round_number = _check_can_pair(state, None)
        record(
            Action.SWISS_ROUND_REQUESTED, user, stage=stage, group=state.group, round=round_number
        )
        actor = user.pk if getattr(user, "is_authenticated", False) else None
        transaction.on_commit(lambda: tasks.pair_swiss_round.delay(stage.pk, round_number, actor))
    return round_number


def _send_open_games_to_adjudication(user: Actor, state: SwissState) -> None:
    """Switch the current round, whose deadline passed in ``td`` mode, to adjudication; an
    ActionError says why it cannot be."""
    require_open_group(
        state,
        _("Games are sent to adjudication while the stage is in play; this stage is %(status)s."),
        _("The group is closed; reopen it to pair another round."),
    )
    rnd = state.current
    if rnd is None or rnd.deadline_passed_at is None:
        when = f" ({rnd.due_at:%Y-%m-%d %H:%M} UTC)" if rnd is not None and rnd.due_at else ""
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Round %(round)s's games go to adjudication once its deadline has passed%(when)s.")
            % {"round": state.paired, "when": when},
        )
    if rnd.adjudicating:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Round %(round)s's open games are already with the adjudicator.")
            % {"round": state.paired},
        )
    if not state.open_games:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Every game of round %(round)s has a result: there is nothing to adjudicate.")
            % {"round": state.paired},
        )
    rnd.at_deadline = Stage.AtDeadline.ADJUDICATE
    rnd.save(update_fields=["at_deadline"])
    record(
        Action.SWISS_ROUND_SENT_TO_ADJUDICATION,
        user,
        stage=state.stage,
        group=state.group,
        round=state.paired,
        open_games=state.open_games,
    )


def pair_next_round(
    user: Actor | None, stage: Stage, round_number: int | None = None, *, system: bool = False
) -> RoundOutcome:
    """Pair the stage's next round and write its games and bye, in one transaction.

    With ``round_number`` (the task's), a round already paired is left as it is
    (``created=False``): pairing twice never makes two rounds. Refused (an ActionError) while
    a game of the current round has no result, when every round is paired, or when the
    engine finds no pairing (the error says why). ``system``: the automatic pairing after a
    round's last result (no acting organizer to check).
    """
    if not system:
        require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        state = swiss_state(stage, cells=True, lock=True)
        if round_number is not None and state.paired >= round_number:
            return _existing(state, round_number)
        number = _check_can_pair(state, round_number)
        if round_number is not None and number != round_number:
            raise ActionError(
                ErrorCode.CONFLICT,
                _("Round %(round)s cannot be paired before round %(before)s.")
                % {"round": round_number, "before": number},
            )
        group = state.group
        assert group is not None
        try:
            pairing = pair_next(
                group.size,
                state.cells,
                state.rounds,
                stage.swiss_acceleration,
                colour_of_rule(group.rule),
                state.withdrawn,
                state.order,
                applied_virtual_points(group),
            )
        except PairingError as exc:
            raise ActionError(
                ErrorCode.DRAW_IMPOSSIBLE,
                _("Round %(round)s cannot be paired: %(reason)s")
                % {"round": number, "reason": exc},
            ) from exc
        applied = round_virtual_points(state.order, state.rounds, stage.swiss_acceleration, number)
        outcome = _write_round(group, number, pairing, applied)
        record(
            Action.SWISS_ROUND_PAIRED,
            user,
            stage=stage,
            group=group,
            round=number,
            games=outcome.games,
            bye=outcome.bye,
        )
        # A stage played on this server: the round's games start now (apps/play).
        start_play(stage, actor=user)
        schedule_recomputes([group.pk])
        # Each player's pairing by e-mail (round 1's went with the start lists).
        stage_id = stage.pk
        transaction.on_commit(lambda: notify.swiss_round_paired.delay(stage_id, number))
    return outcome


def _existing(state: SwissState, round_number: int) -> RoundOutcome:
    group = state.group
    assert group is not None
    games = Game.objects.filter(group=group, round=round_number).count()
    bye = (
        SwissBye.objects.filter(group=group, round=round_number)
        .values_list("entrant__code", flat=True)
        .first()
    )
    return RoundOutcome(round_number, games, bye, False)


def _write_round(
    group: Group, number: int, pairing: Pairing, virtual_points: dict[int, int]
) -> RoundOutcome:
    entrant_of = {
        s: e for e, s in Seat.objects.filter(group=group).values_list("entrant_id", "number")
    }
    first = (Game.objects.filter(group=group).aggregate(last=Max("number"))["last"] or 0) + 1
    Game.objects.bulk_create(
        Game(
            group=group,
            number=first + i,
            round=number,
            white_id=entrant_of[white],
            black_id=entrant_of[black],
        )
        for i, (white, black) in enumerate(pairing.pairs)
    )
    bye = None
    if pairing.bye is not None:
        bye_entry = SwissBye.objects.create(
            group=group, round=number, entrant_id=entrant_of[pairing.bye]
        )
        bye = bye_entry.entrant.code
    start_round(group, number, group.stage.swiss_round_days, virtual_points=virtual_points)
    return RoundOutcome(number, len(pairing.pairs), bye, True)


def pair_when_round_complete(sender=None, group_ids=(), **kwargs) -> list[int]:
    """After results changed (``apps.results.signals.results_changed``, after the commit):
    queue the next round of each Swiss stage among those groups whose current round now has
    every result. Returns the stages queued. A stage already queued is queued again
    harmlessly: the task pairs a round once."""
    queued = []
    stages = Stage.objects.filter(
        groups__pk__in=list(group_ids), format=Stage.Format.SWISS, status=Stage.Status.PUBLISHED
    ).select_related("tournament")
    for stage in stages.distinct():
        state = swiss_state(stage)
        if state.can_pair_next:
            tasks.pair_swiss_round.delay(stage.pk, state.paired + 1, None)
            queued.append(stage.pk)
    return queued


def record_failure(stage_id: int, round_number: int, user: Actor | None, message: str) -> None:
    """Keep why a queued round could not be paired (the stage's page and API show it)."""
    with transaction.atomic():
        stage = Stage.objects.select_related("tournament").get(pk=stage_id)
        record(Action.SWISS_ROUND_FAILED, user, stage=stage, round=round_number, error=message)
