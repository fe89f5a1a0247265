"""Silence: how long the side to move has not moved, the reminders due, and the loss at 40.

Silence is counted like a move's days used: the complete 24-hour periods of the move in
hand's reflection time, so leave (either player's) does not count as silence. Reminders are
due at 14, 28 and 35 days (the last one copied to the TD); at 40 days the game is lost by
silence, unless the player declared before that instant that they will use more than 40
days. A declaration lifts only the silence rule: the clock still decides, and a player
whose clock runs out loses on time (:func:`~apps.clock.engine.clock_report`), declaration or
not — that is what "and their clock allows it" means here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from .game import GameTimes, as_utc
from .reflection import DAY, Pauses, days_in
from .side import Side

SILENCE_DAYS = 40
"""Days without a move after which the game is lost by silence."""


class Reminder(enum.Enum):
    """A reminder to a player who has not moved, by the days of silence that make it due."""

    FIRST = 14
    SECOND = 28
    LAST = 35

    @property
    def days(self) -> int:
        """The days of silence at which the reminder is due."""
        return self.value

    @property
    def copies_td(self) -> bool:
        """Whether the group's TD receives a copy (the last reminder only)."""
        return self is Reminder.LAST


@dataclass(frozen=True)
class SilenceReport:
    """The silence of the side to move at ``now``.

    ``since`` is when their move in hand began; ``loses_at`` the instant 40 days of silence
    are reached (``None`` when a declaration lifts the rule); ``next_due_at`` the next instant
    something happens — a reminder not yet due, or the loss (``None`` when nothing remains).
    """

    side: Side
    ply: int
    since: datetime
    days_silent: int
    reminders_due: tuple[Reminder, ...]
    declared: bool
    lost: bool
    loses_at: datetime | None
    next_due_at: datetime | None


def silence_report(
    game: GameTimes, now: datetime, *, declared_at: datetime | None = None
) -> SilenceReport:
    """The silence of ``game``'s side to move at ``now`` (not before its last move).

    ``declared_at``: when the player declared they will use more than 40 days on this move;
    it counts if it came before the 40th day of silence was complete.
    """
    now = game.check_now(now)
    return silence_since(
        game.last_move,
        game.pauses,
        now,
        side=game.side_to_move,
        ply=game.ply_in_hand,
        declared_at=declared_at,
    )


def silence_since(
    since: datetime,
    pauses: Pauses,
    now: datetime,
    *,
    side: Side,
    ply: int,
    declared_at: datetime | None = None,
    limit: int = SILENCE_DAYS,
) -> SilenceReport:
    """The silence of ``side``, to make ply ``ply`` since ``since`` (their opponent's last
    move, or the start), at ``now``, with no clock running during ``pauses``; the game is
    lost at ``limit`` days of silence (an event may set another than 40), and only the
    reminders due before that are sent.

    What :func:`silence_report` answers for a whole game, for a caller that knows only the
    last move's instant and the two players' leave (a sweep over many games need not load
    every move of each).
    """
    since, now = as_utc("since", since), as_utc("now", now)
    if now < since:
        raise ValueError(f"now ({now.isoformat()}) is before the last move ({since.isoformat()})")
    days_silent = days_in(pauses.running(since, now))
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"the silence limit must be a whole number of days, not {limit!r}")
    deadline = pauses.instant_after(since, limit * DAY)
    declared = False
    if declared_at is not None:
        declared_at = as_utc("the declaration", declared_at)
        if declared_at > now:
            raise ValueError(f"the declaration ({declared_at.isoformat()}) is after now")
        declared = declared_at < deadline
    loses_at = None if declared else deadline
    reminders = [reminder for reminder in Reminder if reminder.days < limit]
    due = tuple(reminder for reminder in reminders if reminder.days <= days_silent)
    upcoming = [
        pauses.instant_after(since, reminder.days * DAY)
        for reminder in reminders
        if reminder not in due
    ]
    if loses_at is not None and loses_at > now:
        upcoming.append(loses_at)
    return SilenceReport(
        side=side,
        ply=ply,
        since=since,
        days_silent=days_silent,
        reminders_due=due,
        declared=declared,
        lost=loses_at is not None and loses_at <= now,
        loses_at=loses_at,
        next_due_at=min(upcoming, default=None),
    )
