"""The state of a Swiss stage: its one group, its rounds as they stand and each seat's record.

:func:`swiss_state` reads the stage's rounds from what the database holds: the seats (a
seat's number is its start number, FIDE's TPN), every game with its round and result, the
pairing-allocated byes (:class:`~apps.groups.models.SwissBye`) and the withdrawals. With
``cells`` it reads each seat's record as the TRF round cells the Dutch engine pairs from:

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

An entrant withdrawn from the stage is absent from every later round. A game left unfinished
when its round's deadline passed in a stage that adjudicates them (``SwissRound.adjudicating``,
:mod:`.deadlines`) is ``=`` for both sides — a draw, played, colours as paired — for pairing
only (the old FIDE rule for adjourned games) until its result is entered, and it does not
hold up the next round.

Late entrants (:mod:`.late`) sit at the end, so the seats are the pairing numbers only until
one joins; the engine is given the seats in pairing-number order (``SwissState.order``,
FIDE's initial order of all of them), and a late entrant's rounds before they joined are
``Z``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Max
from django.utils.translation import gettext as _

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.core.results import Result, SideOutcome
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye, SwissRound
from apps.results.services import locked_group
from apps.silli.swiss_system import RankedPlayer, SeatRound, pairing_order
from apps.stages.models import Stage

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
    pairing: int | None = None
    """The round an organizer asked for that is not paired yet, with no failure recorded
    since (None: none): its pairing waits for a worker or runs — or its worker was lost, and
    the broker hands the task out again (Redis: after its visibility timeout)."""
    pairing_asked_at: datetime | None = None
    """When :attr:`pairing` was asked for."""
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
            "pairing": self.pairing,
            "pairing_asked_at": self.pairing_asked_at,
            "due_at": self.current.due_at if self.current else None,
            "deadline_passed": bool(self.current and self.current.deadline_passed_at),
            "at_deadline": self.current.at_deadline if self.current else "",
        }


def swiss_group(stage: Stage) -> Group | None:
    """The stage's one group (None before the draw)."""
    return stage.groups.order_by("number").first()


def swiss_state(stage: Stage, *, cells: bool = False, lock: bool = False) -> SwissState:
    """The stage's rounds; with ``cells``, every seat's record too (what pairing needs).

    ``lock``: the caller's transaction has locked the stage and writes into its group (a
    round, a late entrant's seat, a deadline): the group is locked too, after the stage and
    before anything in it, and read under that lock (``apps.core.locking``)."""
    if not stage.is_swiss:
        raise ActionError(ErrorCode.WRONG_STATUS, _("This stage is not a Swiss stage."))
    group = swiss_group(stage)
    if group is not None and lock:
        group = locked_group(group.pk)
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
    state.pairing, state.pairing_asked_at = _asked_for(stage, paired)
    state.current = SwissRound.objects.filter(group=group, number=paired).first()
    if cells:
        _read_cells(state)
    return state


def _asked_for(stage: Stage, paired: int) -> tuple[int | None, datetime | None]:
    """The round last asked for and when, if it is not paired and no failure of the stage's
    pairing was recorded after the request."""
    events = AuditEvent.objects.filter(stage_id=stage.pk)
    asked = events.filter(action=Action.SWISS_ROUND_REQUESTED).order_by("-id").first()
    if asked is None or asked.data.get("round", 0) <= paired:
        return None, None
    if events.filter(action=Action.SWISS_ROUND_FAILED, id__gt=asked.pk).exists():
        return None, None
    return asked.data["round"], asked.created_at


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
