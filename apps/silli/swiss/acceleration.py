"""Accelerated pairings as virtual points (added to the pairing score only, never to standings).

* ``NONE``: no virtual points;
* ``BAKU``: FIDE C.04.5.1 (C.04.7 in the 2026 handbook), the Baku Acceleration Method, as the
  official bbpPairings v6.0.0 applies it (``192 FIDE_DUTCH_2025_BAKU``): group A is the first
  ⌈N/2⌉ players of the initial order (N: every player of the tournament); the accelerated
  rounds are the first half of the rounds, rounded up; in the first half of those (rounded up)
  group A gets a win's points (1), in the rest half of it.  FIDE's text says "the first half,
  rounded up to the nearest even number", 2·⌈N/4⌉, which differs when N ≡ 2 (mod 4); the
  official build is followed here;
* ``GENERAL``: O. Milvang's general scheme ("Accelerated pairing", rev. 6, 2017): the same
  rounds and points, group A the first half of the players, rounded down;
* explicit points per player and round (the TRF ``XXA`` lines): :func:`explicit`.

All values are in half-points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum


class Acceleration(Enum):
    NONE = "none"
    BAKU = "baku"
    GENERAL = "general"


def accelerated_rounds(total_rounds: int) -> tuple[int, int]:
    """(rounds with a full virtual point, rounds with a half one) for a tournament's length."""
    accelerated = (total_rounds + 1) // 2
    full = (accelerated + 1) // 2
    return full, accelerated - full


def group_a_size(players: int, method: Acceleration) -> int:
    if method is Acceleration.BAKU:
        return (players + 1) // 2
    if method is Acceleration.GENERAL:
        return players // 2
    return 0


def virtual_points(
    order: Sequence[int], total_rounds: int, method: Acceleration
) -> dict[int, dict[int, int]]:
    """``result[player][round]`` in half-points for the players in initial order ``order``."""
    result: dict[int, dict[int, int]] = {player: {} for player in order}
    if method is Acceleration.NONE:
        return result
    full, half = accelerated_rounds(total_rounds)
    size = min(group_a_size(len(order), method), len(order))
    for player in order[:size]:
        for round_number in range(1, full + 1):
            result[player][round_number] = 2
        for round_number in range(full + 1, full + half + 1):
            result[player][round_number] = 1
    return result


def explicit(points: Mapping[int, Mapping[int, float]]) -> dict[int, dict[int, int]]:
    """Virtual points given per player and round (points, not half-points)."""
    result: dict[int, dict[int, int]] = {}
    for player, rounds in points.items():
        result[player] = {}
        for round_number, value in rounds.items():
            doubled = value * 2
            if doubled != int(doubled):
                raise ValueError(
                    f"player {player}, round {round_number}: {value} is not a multiple of ½"
                )
            result[player][round_number] = int(doubled)
    return result
