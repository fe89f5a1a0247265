"""Time controls: the days a move is charged, and the days a player may have been charged.

A move's **days used** are the complete 24-hour periods of its reflection time. Days used
beyond the control's **doubling point** count twice: with doubling after 20, a move that used
23 days is charged 26. The doubling point applies to each move by itself (a player who uses
15 days on each of two moves is charged 30, not 40).

Both controls answer the same question through :meth:`allowance`: how many days a player may
have been charged, summed from the start of the game, once their move number *k* is made.

* :class:`MovesInDays` — N moves in D days (default 10 in 50): D by the 10th move, 2·D by the
  20th, and so on; unused days carry forward.
* :class:`Fischer` — a clock of B days (default 30) that gains I days (default 3) after each
  move: B + (k − 1)·I for move *k*; the clock may not go below zero.

Reaching the allowance exactly is allowed; one charged day more is a loss on time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

DOUBLING_AFTER = 20
"""The rules' default doubling point, in days used on one move."""


def _check_whole(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value}")


def _check_doubling(doubling_after: int | None) -> None:
    if doubling_after is not None:
        _check_whole("doubling_after", doubling_after, 0)


def charged_days(days_used: int, doubling_after: int | None) -> int:
    """The days charged for one move that used ``days_used`` days: the days beyond
    ``doubling_after`` count twice (``None``: no doubling).

    >>> charged_days(23, 20), charged_days(20, 20), charged_days(23, None)
    (26, 20, 23)
    """
    if days_used < 0:
        raise ValueError(f"days used cannot be negative ({days_used})")
    if doubling_after is None:
        return days_used
    return days_used + max(0, days_used - doubling_after)


def days_to_exceed(days_left: int, doubling_after: int | None) -> int:
    """The fewest days used on one move whose charge exceeds ``days_left``: the move in hand
    is lost on time the moment its days used reach this number.

    >>> days_to_exceed(50, None), days_to_exceed(50, 20), days_to_exceed(10, 20)
    (51, 36, 11)
    """
    if days_left < 0:
        raise ValueError(f"days left cannot be negative ({days_left})")
    if doubling_after is None or days_left < doubling_after:
        return days_left + 1
    # beyond the doubling point a move of u days is charged 2u − d: the first u with
    # 2u − d > days_left
    return (days_left + doubling_after) // 2 + 1


@dataclass(frozen=True)
class MovesInDays:
    """N moves in D days: a player's charged days, summed from the start, may not exceed
    D by their Nth move, 2·D by their 2Nth, and so on."""

    moves: int = 10
    days: int = 50
    doubling_after: int | None = DOUBLING_AFTER

    def __post_init__(self) -> None:
        _check_whole("moves", self.moves, 1)
        _check_whole("days", self.days, 1)
        _check_doubling(self.doubling_after)

    def allowance(self, move_number: int) -> int:
        """The most days a player may have been charged in all once their move
        ``move_number`` (1, 2, …) is made: D for moves 1…N, 2·D for moves N+1…2N …"""
        _check_whole("move_number", move_number, 1)
        periods = -(-move_number // self.moves)
        return periods * self.days

    def charge(self, days_used: int) -> int:
        """The days charged for one move that used ``days_used`` days."""
        return charged_days(days_used, self.doubling_after)


@dataclass(frozen=True)
class Fischer:
    """A clock of ``base`` days that gains ``increment`` days after each move; each move's
    charged days come off it, and it may not go below zero."""

    base: int = 30
    increment: int = 3
    doubling_after: int | None = DOUBLING_AFTER

    def __post_init__(self) -> None:
        _check_whole("base", self.base, 1)
        _check_whole("increment", self.increment, 0)
        _check_doubling(self.doubling_after)

    def allowance(self, move_number: int) -> int:
        """The most days a player may have been charged in all once their move
        ``move_number`` (1, 2, …) is made: the base and the increments of the moves before."""
        _check_whole("move_number", move_number, 1)
        return self.base + (move_number - 1) * self.increment

    def charge(self, days_used: int) -> int:
        """The days charged for one move that used ``days_used`` days."""
        return charged_days(days_used, self.doubling_after)


TimeControl: TypeAlias = MovesInDays | Fischer
"""A game's time control: :class:`MovesInDays` or :class:`Fischer`."""
