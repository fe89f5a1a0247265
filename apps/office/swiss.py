"""A Swiss stage round by round: the state of its one group, and pairing the next round.

The draw pairs round 1 (``apps.silli.swiss_system``). Each later round is paired by
:func:`pair_next_round` — one action, one transaction — from what the database holds: the
seats (a seat's number is its start number, FIDE's TPN), every game with its round and
result, the pairing-allocated byes (:class:`~apps.groups.models.SwissBye`) and the
withdrawals. How each becomes a TRF round cell for the Dutch engine:

==========================  ===========================================================
the database                the engine's cell (this seat's side)
==========================  ===========================================================
``1-0`` ``0-1`` ``½-½``     opponent, colour, ``1`` / ``0`` / ``=`` (played)
``+-`` ``-+``               opponent, colour, ``+`` / ``-`` (a forfeit: not played, but
                            the pair counts as met; no colour history)
``--``                      opponent, colour, ``-`` for both
a ``SwissBye``              no opponent, ``U``: a win's points, no second bye
no game, no bye             no opponent, ``Z``: absent (0 points)
==========================  ===========================================================

An entrant withdrawn from the stage is absent from every later round. The organizer asks for
the next round (:func:`start_next_round`: checked at once, then queued); the Celery task
(``tasks.pair_swiss_round``) runs :func:`pair_next_round` for that round number, so a repeated
request or a redelivered task finds the round paired and writes nothing.

A round's deadline (``swiss_deadlines.py``): a game left unfinished when its round's deadline
passed in a stage that adjudicates them (``SwissRound.adjudicating``) is ``=`` for both sides —
a draw, played, colours as paired — for pairing only (the old FIDE rule for adjourned games)
until its result is entered, and it does not hold up the next round.

Late entrants (:mod:`.swiss_late`) sit at the end, so the seats are the pairing numbers only
until one joins; the engine is given the seats in pairing-number order (``SwissState.order``,
FIDE's initial order of all of them), and a late entrant's rounds before they joined are
``Z``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.core.permissions import require_organizer
from apps.core.results import Result, SideOutcome
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye, SwissRound
from apps.groups.rounds import start_round
from apps.notifications import tasks as notify
from apps.silli.swiss.dutch import Pairing, PairingError
from apps.silli.swiss_system import (
    RankedPlayer,
    SeatRound,
    colour_of_rule,
    pair_next,
    pairing_order,
)
from apps.stages.models import Stage
from apps.stages.services import locked
from apps.standings.freshness import schedule_recomputes

from . import tasks

log = logging.getLogger(__name__)

_CODE = {SideOutcome.WIN: "1", SideOutcome.DRAW: "=", SideOutcome.LOSS: "0"}
_FORFEIT = {SideOutcome.WIN: "+", SideOutcome.DRAW: "=", SideOutcome.LOSS: "-"}


@dataclass
class SwissState:
    """A Swiss stage's rounds as they stand."""

    stage: Stage
    group: Group | None
    rounds: int
    """The rounds the stage plays."""
    paired: int
    """The last round paired (0 before the draw)."""
    open_games: int
    """Games of the last round paired still without a result."""
    seats: dict[int, int] = field(default_factory=dict)
    """entrant id → seat (the start number)."""
    order: list[int] = field(default_factory=list)
    """The seats in pairing-number order (TPN 1 first): the seats themselves unless a late
    entrant joined (:func:`~apps.silli.swiss_system.pairing_order`)."""
    cells: dict[int, list[SeatRound]] = field(default_factory=dict)
    """seat → its rounds so far, one cell a round."""
    withdrawn: set[int] = field(default_factory=set)
    """Seats of entrants withdrawn from the stage."""
    failure: str = ""
    """Why the last attempt at the next round failed (empty: none since the last round)."""
    current: SwissRound | None = None
    """The last round paired's start and deadline (None: not recorded)."""

    @property
    def adjudicating(self) -> bool:
        """The current round's deadline passed and its unfinished games went to adjudication:
        they no longer hold up the next round."""
        return self.current is not None and self.current.adjudicating

    @property
    def complete(self) -> bool:
        return self.paired >= self.rounds

    @property
    def can_pair_next(self) -> bool:
        return (
            self.group is not None
            and self.stage.status == Stage.Status.PUBLISHED
            and not self.group.is_closed
            and not self.complete
            and (self.open_games == 0 or self.adjudicating)
        )

    def as_dict(self) -> dict:
        return {
            "stage": self.stage.pk,
            "rounds": self.rounds,
            "paired": self.paired,
            "open_games": self.open_games,
            "complete": self.complete,
            "can_pair_next": self.can_pair_next,
            "failure": self.failure,
            "due_at": self.current.due_at if self.current else None,
            "deadline_passed": bool(self.current and self.current.deadline_passed_at),
            "at_deadline": self.current.at_deadline if self.current else "",
        }


def swiss_group(stage: Stage) -> Group | None:
    """The stage's one group (None before the draw)."""
    return stage.groups.order_by("number").first()


def swiss_state(stage: Stage, *, cells: bool = False) -> SwissState:
    """The stage's rounds; with ``cells``, every seat's record too (what pairing needs)."""
    if not stage.is_swiss:
        raise ActionError(ErrorCode.WRONG_STATUS, _("This stage is not a Swiss stage."))
    group = swiss_group(stage)
    rounds = stage.swiss_rounds or 0
    if group is None:
        return SwissState(stage, None, rounds, 0, 0)
    games = Game.objects.filter(group=group)
    last_game = games.aggregate(last=Max("round"))["last"] or 0
    last_bye = SwissBye.objects.filter(group=group).aggregate(last=Max("round"))["last"] or 0
    paired = max(last_game, last_bye)
    open_games = games.filter(round=paired, result="").count() if paired else 0
    state = SwissState(stage, group, rounds, paired, open_games)
    state.failure = _last_failure(stage, paired)
    state.current = SwissRound.objects.filter(group=group, number=paired).first()
    if cells:
        _read_cells(state)
    return state


def _last_failure(stage: Stage, paired: int) -> str:
    event = (
        AuditEvent.objects.filter(stage_id=stage.pk, action=Action.SWISS_ROUND_FAILED)
        .order_by("-id")
        .first()
    )
    if event is None or event.data.get("round", 0) <= paired:
        return ""
    return str(event.data.get("error", ""))


def _read_cells(state: SwissState) -> None:
    group = state.group
    assert group is not None
    seated = list(
        Seat.objects.filter(group=group).values_list(
            "entrant_id", "number", "entrant__code", "entrant__name", "entrant__rating"
        )
    )
    state.seats = {entrant: number for entrant, number, *_ in seated}
    state.order = pairing_order(
        {number: RankedPlayer(code, name, rating) for _, number, code, name, rating in seated}
    )
    seat = state.seats
    by_round: dict[int, dict[int, SeatRound]] = {s: {} for s in seat.values()}
    adjudicated = {r.number for r in SwissRound.objects.filter(group=group) if r.adjudicating}
    rows = Game.objects.filter(group=group).values_list("round", "white_id", "black_id", "result")
    for rnd, white, black, code in rows:
        if rnd is None:
            continue
        w, b = seat[white], seat[black]
        by_round[w][rnd], by_round[b][rnd] = _game_cells(w, b, code, rnd in adjudicated)
    for rnd, entrant in SwissBye.objects.filter(group=group).values_list("round", "entrant_id"):
        by_round[seat[entrant]][rnd] = SeatRound(None, None, "U")
    absent = SeatRound(None, None, "Z")
    state.cells = {
        s: [rounds.get(r, absent) for r in range(1, state.paired + 1)]
        for s, rounds in by_round.items()
    }
    gone = StageEntry.objects.filter(
        stage=state.stage, withdrawn_at__isnull=False, entrant_id__in=list(seat)
    ).values_list("entrant_id", flat=True)
    state.withdrawn = {seat[e] for e in gone}


def _game_cells(
    white: int, black: int, code: str, adjudicated: bool = False
) -> tuple[SeatRound, SeatRound]:
    """Each side's cell of a game (an unfinished game: result blank; a draw if its round's
    deadline sent it to adjudication)."""
    result = Result(code)
    if not result.finished:
        mark = "=" if adjudicated else " "
        return SeatRound(black, True, mark), SeatRound(white, False, mark)
    w, b = result.outcomes
    table = _CODE if result.played else _FORFEIT
    return SeatRound(black, True, table[w]), SeatRound(white, False, table[b])


@dataclass(frozen=True)
class RoundOutcome:
    """What :func:`pair_next_round` did: the round, its games and bye, or nothing new."""

    round: int
    games: int
    bye: str | None
    created: bool


def require_open_group(state: SwissState, not_in_play: str, closed: str) -> Group:
    """The stage's group when the stage is published and the group open; otherwise an
    ActionError with ``not_in_play`` (given the stage's ``%(status)s``) or ``closed``."""
    stage = state.stage
    if state.group is None or stage.status != Stage.Status.PUBLISHED:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            not_in_play % {"status": stage.get_status_display().lower()},
        )
    if state.group.is_closed:
        raise ActionError(ErrorCode.WRONG_STATUS, closed)
    return state.group


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


def start_next_round(user, stage: Stage, *, adjudicate_open: bool = False) -> int:
    """Ask for the stage's next round (organizers): checked now, paired by a Celery task
    after the commit. Returns the round's number.

    ``adjudicate_open``: in a stage whose rounds wait for the TD at the deadline (``td``),
    once the current round's deadline has passed, first send its unfinished games to
    adjudication, as an ``adjudicate`` deadline would have (for pairing they count as draws
    until their results are entered) — in the same transaction, audited."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        state = swiss_state(stage)
        if adjudicate_open:
            _send_open_games_to_adjudication(user, state)
        round_number = _check_can_pair(state, None)
        record(
            Action.SWISS_ROUND_REQUESTED, user, stage=stage, group=state.group, round=round_number
        )
        actor = user.pk if getattr(user, "is_authenticated", False) else None
        transaction.on_commit(lambda: tasks.pair_swiss_round.delay(stage.pk, round_number, actor))
    return round_number


def _send_open_games_to_adjudication(user, state: SwissState) -> None:
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
    user, stage: Stage, round_number: int | None = None, *, system: bool = False
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
        state = swiss_state(stage, cells=True)
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
            )
        except PairingError as exc:
            raise ActionError(
                ErrorCode.DRAW_IMPOSSIBLE,
                _("Round %(round)s cannot be paired: %(reason)s")
                % {"round": number, "reason": exc},
            ) from exc
        outcome = _write_round(group, number, pairing)
        record(
            Action.SWISS_ROUND_PAIRED,
            user,
            stage=stage,
            group=group,
            round=number,
            games=outcome.games,
            bye=outcome.bye,
        )
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


def _write_round(group: Group, number: int, pairing: Pairing) -> RoundOutcome:
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
    start_round(group, number, group.stage.swiss_round_days)
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


def record_failure(stage_id: int, round_number: int, user, message: str) -> None:
    """Keep why a queued round could not be paired (the stage's page and API show it)."""
    with transaction.atomic():
        stage = Stage.objects.select_related("tournament").get(pk=stage_id)
        record(Action.SWISS_ROUND_FAILED, user, stage=stage, round=round_number, error=message)
