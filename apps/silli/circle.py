"""The closed circle: who plays whom, with which colour.

Seats are numbered 1..n and n is followed by 1. With formula ``D``, seat
``x`` has White against ``x + d`` and Black against ``x - d`` for every
``d`` in D. Worked example (n = 103, D = 1.4.10.17.29): seat 50 has White
against 51, 54, 60, 67, 79 and Black against 49, 46, 40, 33, 21.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache


def _wrap(n: int, seat: int) -> int:
    return (seat - 1) % n + 1


def white_opponents(n: int, formula: Sequence[int], seat: int) -> list[int]:
    """Seats that ``seat`` plays with White, in formula order."""
    return [_wrap(n, seat + d) for d in formula]


def black_opponents(n: int, formula: Sequence[int], seat: int) -> list[int]:
    """Seats that ``seat`` plays with Black, in formula order."""
    return [_wrap(n, seat - d) for d in formula]


def circle_games(n: int, formula: Sequence[int]) -> list[tuple[int, int]]:
    """Every game as (white seat, black seat): seat by seat, then formula order."""
    return [(x, _wrap(n, x + d)) for x in range(1, n + 1) for d in formula]


@lru_cache(maxsize=256)
def neighbours(n: int, formula: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """0-based adjacency of the circle: for each seat index, its 2k opponents."""
    offsets = [d % n for d in formula] + [(-d) % n for d in formula]
    return tuple(tuple((x + o) % n for o in offsets) for x in range(n))


@lru_cache(maxsize=256)
def independence_bound(n: int, formula: tuple[int, ...]) -> int:
    """An upper bound on how many seats can hold players who never meet.

    The ratio (Hoffman) bound ``n·(−λmin)/(2k − λmin)`` with the circulant's
    eigenvalues ``λ_j = Σ 2·cos(2πjd/n)``, never above ``n // 2`` (no
    regular graph with an edge keeps more than half its vertices apart).
    """
    degree = 2 * len(formula)
    lam_min = min(
        sum(2.0 * math.cos(2.0 * math.pi * j * d / n) for d in formula) for j in range(1, n)
    )
    ratio = n * (-lam_min) / (degree - lam_min)
    return min(n // 2, math.floor(ratio + 1e-9))


@lru_cache(maxsize=256)
def arcs(n: int, formula: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Multipliers that turn the circle into seats kept apart, as (length, multiplier).

    For a multiplier ``a``, let ``L`` be the smallest circular distance
    ``min(a·d mod n, n − a·d mod n)`` over the formula. Then for any offset
    ``c`` the seats ``x`` (0-based) with ``(a·x + c) mod n < L`` never meet:
    two of them differ by some ``d`` only if ``a·d`` falls within ``L`` of 0.
    Such a set has about ``L`` seats. Sorted longest first. On a bipartite circle
    (all-odd formula, even n) ``a = n/2`` gives the two parity classes; with
    1.4.10.17 on 102 seats ``a = 34`` gives the multiples of 3 — both are as
    large as any set of seats kept apart can be.
    """
    found = []
    for a in range(1, n // 2 + 1):
        length = min(min((a * d) % n, n - (a * d) % n) for d in formula)
        if length > 0:
            found.append((length, a))
    return tuple(sorted(found, key=lambda la: (-la[0], la[1])))


def arc_seats(n: int, multiplier: int, length: int, offset: int) -> list[int]:
    """The 0-based seats ``x`` with ``(multiplier·x + offset) mod n < length``."""
    return [x for x in range(n) if (multiplier * x + offset) % n < length]
