"""The clock of a game at one instant: what each move used and was charged, what each player
has left, and who lost on time — when and at which ply.

Only the side to move has a running clock. A move in hand is charged, at every instant, the
complete days its reflection has reached so far; the player loses on time at the first
instant that charge, added to the days charged before, exceeds the allowance for the move
(:meth:`~apps.clock.controls.MovesInDays.allowance`). That instant is when the reflection
reaches a whole number of days (:func:`~apps.clock.controls.days_to_exceed`), so a move made
at that very instant is already too late, and a move made a microsecond before it is in time.

The game stops at a loss on time: the report holds the moves made before it, and the loser's
move in hand as it stood at the loss. For a game that ended otherwise (mate, resignation, a
draw), pass its last move's time as ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from .controls import TimeControl, days_to_exceed
from .game import GameTimes
from .reflection import DAY, days_in
from .side import Side, own_move_number


@dataclass(frozen=True)
class MoveReport:
    """One move's time: its reflection (leave excluded), days used and days charged.

    ``made_at`` is ``None`` for the move in hand, counted up to ``now`` or to the loss.
    """

    ply: int
    side: Side
    began: datetime
    made_at: datetime | None
    reflection: timedelta
    days_used: int
    days_charged: int


@dataclass(frozen=True)
class PlayerClock:
    """One player's clock: the days charged so far (the move in hand included, while it is
    theirs), the allowance for their next or current move, and the days left under it
    (never below zero: a player who would go below zero has lost on time)."""

    side: Side
    moves_made: int
    charged_total: int
    allowance: int
    days_left: int


@dataclass(frozen=True)
class TimeLoss:
    """A loss on time: who lost, the ply they were due to make, and the instant it happened."""

    side: Side
    ply: int
    at: datetime


@dataclass(frozen=True)
class ClockReport:
    """The clock of a game at ``as_of``: the ``now`` asked for, or the instant of the loss on
    time if that came first.

    ``runs_out_at`` is the instant the side to move loses on time if they do not move (the
    loss's instant once it happened), counting the leave already known: what a sweep needs to
    find the games whose time ran out without recomputing every clock.
    """

    control: TimeControl
    as_of: datetime
    moves: tuple[MoveReport, ...]
    in_hand: MoveReport
    white: PlayerClock
    black: PlayerClock
    loss: TimeLoss | None
    runs_out_at: datetime

    def clock(self, side: Side) -> PlayerClock:
        """``side``'s clock."""
        return self.white if side is Side.WHITE else self.black

    @property
    def lost_on_time(self) -> Side | None:
        """The side that lost on time, if one did."""
        return self.loss.side if self.loss else None


def clock_report(control: TimeControl, game: GameTimes, now: datetime) -> ClockReport:
    """The clocks of ``game`` under ``control`` at ``now`` (not before its last move).

    Moves made after a loss on time are not part of the game: the report ends at the loss.
    """
    now = game.check_now(now)
    charged = {Side.WHITE: 0, Side.BLACK: 0}
    made: list[MoveReport] = []
    for ply, made_at in enumerate(game.moves, 1):
        move, lost_at = _move(control, game, ply, made_at, charged)
        charged[move.side] += move.days_charged
        if lost_at:
            return _report(control, game, made, move, charged, lost_at, lost_at)
        made.append(move)
    ply = game.ply_in_hand
    runs_out_at = _runs_out_at(control, game, ply, charged)
    move, lost_at = _move(control, game, ply, now, charged)
    charged[move.side] += move.days_charged
    in_hand = replace(move, made_at=None)
    return _report(control, game, made, in_hand, charged, runs_out_at, lost_at or now)


def _days_left(control: TimeControl, game: GameTimes, ply: int, charged: dict[Side, int]) -> int:
    """The days the player of ``ply`` may still be charged before making it (the days a TD
    added included)."""
    side = Side.of_ply(ply)
    return control.allowance(own_move_number(ply)) + game.extra_days(side) - charged[side]


def _runs_out_at(
    control: TimeControl, game: GameTimes, ply: int, charged: dict[Side, int]
) -> datetime:
    """The instant the player of ``ply`` loses on time if they have not made it by then."""
    too_many = days_to_exceed(_days_left(control, game, ply, charged), control.doubling_after)
    return game.pauses.instant_after(game.began(ply), too_many * DAY)


def _move(
    control: TimeControl, game: GameTimes, ply: int, end: datetime, charged: dict[Side, int]
) -> tuple[MoveReport, datetime | None]:
    """Ply ``ply`` thought on until ``end``; if its time ran out before, the move as it stood
    then (``made_at`` ``None``) and the instant."""
    side, began = Side.of_ply(ply), game.began(ply)
    reflection = game.pauses.running(began, end)
    used = days_in(reflection)
    left = _days_left(control, game, ply, charged)
    if control.charge(used) <= left:
        return MoveReport(ply, side, began, end, reflection, used, control.charge(used)), None
    too_many = days_to_exceed(left, control.doubling_after)
    move = MoveReport(ply, side, began, None, too_many * DAY, too_many, control.charge(too_many))
    return move, _runs_out_at(control, game, ply, charged)


def _report(
    control: TimeControl,
    game: GameTimes,
    made: list[MoveReport],
    in_hand: MoveReport,
    charged: dict[Side, int],
    runs_out_at: datetime,
    as_of: datetime,
) -> ClockReport:
    """The report at ``as_of``, the move in hand being ``in_hand``: lost on time if ``as_of``
    is the instant its time ran out."""
    lost = as_of >= runs_out_at
    loss = TimeLoss(in_hand.side, in_hand.ply, runs_out_at) if lost else None

    def clock(side: Side) -> PlayerClock:
        moves_made = sum(1 for move in made if move.side is side)
        allowance = control.allowance(moves_made + 1) + game.extra_days(side)
        days_left = max(0, allowance - charged[side])
        return PlayerClock(side, moves_made, charged[side], allowance, days_left)

    return ClockReport(
        control=control,
        as_of=as_of,
        moves=tuple(made),
        in_hand=in_hand,
        white=clock(Side.WHITE),
        black=clock(Side.BLACK),
        loss=loss,
        runs_out_at=runs_out_at,
    )
