"""Leave: whole calendar days (UTC) during which no clock runs in a player's games.

A leave runs from the start of its first day (00:00 UTC) to the end of its last day (24:00
UTC): both dates are included, so ``Leave(date(2027, 3, 1), date(2027, 3, 1))`` is one day.
During the leave of *either* player neither clock runs in their games (the engine pauses the
side to move, :mod:`~apps.clock.reflection`).

:func:`check_leave` checks a player's request against the limits: announced before its first
day, no overlap with a leave already taken, and no calendar year over its allowance (45 days
a year by default, plus the event's special leave).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

DAYS_PER_YEAR = 45
"""The rules' default leave allowance per calendar year."""


def _check_day(name: str, value: object) -> None:
    if isinstance(value, datetime) or not isinstance(value, date):
        raise ValueError(f"{name} must be a calendar date, not {value!r}")


@dataclass(frozen=True, order=True)
class Leave:
    """A leave from ``first_day`` to ``last_day``, both included (whole days, UTC)."""

    first_day: date
    last_day: date

    def __post_init__(self) -> None:
        _check_day("first_day", self.first_day)
        _check_day("last_day", self.last_day)
        if self.last_day >= date.max:
            raise ValueError(f"a leave must end before {date.max}")
        if self.last_day < self.first_day:
            raise ValueError(
                f"a leave cannot end ({self.last_day}) before it starts ({self.first_day})"
            )

    @property
    def days(self) -> int:
        """How many calendar days the leave holds."""
        return (self.last_day - self.first_day).days + 1

    @property
    def starts(self) -> datetime:
        """The first instant of the leave: its first day at 00:00 UTC."""
        return datetime.combine(self.first_day, time(), UTC)

    @property
    def ends(self) -> datetime:
        """The first instant after the leave: the day after its last day, 00:00 UTC."""
        return datetime.combine(self.last_day + timedelta(days=1), time(), UTC)

    def days_in_year(self, year: int) -> int:
        """How many of the leave's days fall in calendar year ``year``."""
        first = max(self.first_day, date(year, 1, 1))
        last = min(self.last_day, date(year, 12, 31))
        return max(0, (last - first).days + 1)

    def overlaps(self, other: Leave) -> bool:
        """Whether the two leaves share a day."""
        return self.first_day <= other.last_day and other.first_day <= self.last_day


@dataclass(frozen=True)
class LeaveAllowance:
    """The leave a player may take in each calendar year: ``days_per_year`` plus the
    event's ``special_days``. Unused days do not carry over to the next year."""

    days_per_year: int = DAYS_PER_YEAR
    special_days: int = 0

    def __post_init__(self) -> None:
        for name, value in (
            ("days_per_year", self.days_per_year),
            ("special_days", self.special_days),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number of days, not {value!r}")

    @property
    def per_year(self) -> int:
        """The days a player may take in one calendar year."""
        return self.days_per_year + self.special_days


class LeaveProblem(enum.Enum):
    """Why a leave request is refused."""

    NOT_IN_ADVANCE = "not_in_advance"
    OVERLAP = "overlap"
    OVER_ALLOWANCE = "over_allowance"


@dataclass(frozen=True)
class LeaveRefusal:
    """One reason a leave request is refused, with the sentence that explains it."""

    problem: LeaveProblem
    message: str


def check_leave(
    requested: Leave,
    *,
    today: date,
    taken: Sequence[Leave] = (),
    allowance: LeaveAllowance = LeaveAllowance(),
) -> tuple[LeaveRefusal, ...]:
    """Every reason to refuse ``requested`` (none: it may be taken).

    ``today`` is the day of the request (UTC); ``taken`` the player's leaves already granted,
    past or planned. A leave must be announced before its first day (``today`` earlier than
    it), may not share a day with a leave taken, and may not bring any calendar year it
    touches over ``allowance`` (each day counts in its own year).
    """
    _check_day("today", today)
    refusals: list[LeaveRefusal] = []
    if requested.first_day <= today:
        refusals.append(
            LeaveRefusal(
                LeaveProblem.NOT_IN_ADVANCE,
                f"A leave must be announced before it starts: {requested.first_day} is not "
                f"after today ({today}).",
            )
        )
    for other in sorted(taken):
        if requested.overlaps(other):
            refusals.append(
                LeaveRefusal(
                    LeaveProblem.OVERLAP,
                    f"The leave overlaps the leave from {other.first_day} to {other.last_day}.",
                )
            )
    for year in range(requested.first_day.year, requested.last_day.year + 1):
        before = sum(other.days_in_year(year) for other in taken)
        total = before + requested.days_in_year(year)
        if total > allowance.per_year:
            refusals.append(
                LeaveRefusal(
                    LeaveProblem.OVER_ALLOWANCE,
                    f"In {year} the leave would bring the days of leave to {total}; the "
                    f"allowance is {allowance.per_year} ({before} taken already).",
                )
            )
    return tuple(refusals)
