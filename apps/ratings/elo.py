"""The expected score of the logistic (Elo) curve, with the rating difference capped.

``E = 1 / (1 + 10^(-D/400))`` for a player rated ``D`` points above the opponent, where a
difference of more than 400 points counts as 400 (FIDE's rating regulations). The value
is a :class:`~decimal.Decimal` of 28 significant digits computed in a context of its own, so
it is the same on every machine whatever the caller's decimal context. The two sides'
expected scores add up to exactly 1: the favourite's is computed and the other's is its
complement.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

DIFFERENCE_CAP = 400
"""A rating difference of more than this counts as this much."""

CONTEXT = Context(prec=28, rounding=ROUND_HALF_EVEN)
"""The decimal context of every computation of this package."""


def capped_difference(rating: int, opponent_rating: int, cap: int = DIFFERENCE_CAP) -> int:
    """``rating - opponent_rating``, limited to ``-cap … cap``."""
    return max(-cap, min(cap, rating - opponent_rating))


def expected_score(rating: int, opponent_rating: int, cap: int = DIFFERENCE_CAP) -> Decimal:
    """The expected score of a player rated ``rating`` against one rated ``opponent_rating``.

    >>> expected_score(2400, 2400)
    Decimal('0.5')
    >>> expected_score(2500, 2000) == expected_score(2400, 2000)
    True
    >>> expected_score(2100, 2000) + expected_score(2000, 2100)
    Decimal('1.000000000000000000000000000')
    """
    return _expected_at(capped_difference(rating, opponent_rating, cap))


@functools.lru_cache(maxsize=2048)
def _expected_at(difference: int) -> Decimal:
    """:func:`expected_score` for a capped ``difference`` (remembered: a big group's norm
    figures at five levels ask for the same few hundred differences again and again)."""
    favourite = CONTEXT.divide(
        Decimal(1),
        CONTEXT.add(Decimal(1), CONTEXT.power(Decimal(10), CONTEXT.divide(-abs(difference), 400))),
    )
    return favourite if difference >= 0 else CONTEXT.subtract(Decimal(1), favourite)


def decimal(value: Fraction) -> Decimal:
    """A score (a multiple of ½, or any fraction) as a decimal in :data:`CONTEXT`."""
    return CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))


def total(values: Iterable[Decimal]) -> Decimal:
    """The sum of ``values`` in :data:`CONTEXT`."""
    result = Decimal(0)
    for value in values:
        result = CONTEXT.add(result, value)
    return result
