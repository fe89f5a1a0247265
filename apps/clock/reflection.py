"""Reflection time: the time a clock runs, which stops during leave.

A move's reflection time runs from the moment the opponent's move reached the player (the
game's start for White's first move) to the moment the player moves, less every instant that
falls on a leave day of either player. :class:`Pauses` holds those instants (the union of
both players' leave, as half-open UTC intervals) and answers two questions exactly, to the
microsecond: how much a clock ran between two instants, and when it will have run a given
amount.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from datetime import datetime, timedelta

from .leave import Leave

DAY = timedelta(days=1)
"""One day of reflection: 24 hours of running clock."""


def days_in(reflection: timedelta) -> int:
    """The complete 24-hour periods in ``reflection``: 23:59 is 0 days, 24:00 and 30:00 are 1."""
    return reflection // DAY


class Pauses:
    """The instants during which no clock runs: the union of the leave given."""

    def __init__(self, leave: Iterable[Leave] = ()) -> None:
        merged: list[tuple[datetime, datetime]] = []
        for one in sorted(leave):
            if merged and one.starts <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], one.ends))
            else:
                merged.append((one.starts, one.ends))
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    @property
    def intervals(self) -> tuple[tuple[datetime, datetime], ...]:
        """The pauses, merged and in order: ``(first instant, first instant after)``."""
        return tuple(zip(self._starts, self._ends, strict=True))

    def running(self, begin: datetime, end: datetime) -> timedelta:
        """How long a clock ran from ``begin`` to ``end``: the time between them less the
        pauses in it."""
        if end < begin:
            raise ValueError(f"{end} is before {begin}")
        paused = timedelta()
        index = bisect_right(self._ends, begin)
        while index < len(self._starts) and self._starts[index] < end:
            paused += min(self._ends[index], end) - max(self._starts[index], begin)
            index += 1
        return end - begin - paused

    def instant_after(self, begin: datetime, amount: timedelta) -> datetime:
        """The first instant at which a clock started at ``begin`` has run ``amount``.

        For a positive amount the instant is never inside a pause: a clock that reaches the
        amount just as a leave begins reaches it at the leave's first instant.
        """
        if amount < timedelta():
            raise ValueError(f"a clock cannot run a negative time ({amount})")
        moment, left = begin, amount
        index = bisect_right(self._ends, begin)
        while left and index < len(self._starts):
            start, end = self._starts[index], self._ends[index]
            if start > moment:
                if start - moment >= left:
                    return moment + left
                left -= start - moment
            moment = max(moment, end)
            index += 1
        return moment + left
