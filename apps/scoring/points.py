"""Points as a chess player writes them, the one way every page, export and reason writes them."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias

Points: TypeAlias = Fraction | Decimal | int | str
"""Points exact or as stored: a fraction, a decimal, a whole number or a decimal string."""

_VULGAR = {Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾"}


def points_text(value: Points) -> str:
    """Points as a chess player writes them: ``6``, ``6½``, ``½``, ``2¼``, ``5.6``.

    Halves and quarters are written as vulgar fractions, other terminating fractions as exact
    decimals, anything else rounded to two decimals.

    >>> points_text(Fraction(13, 2)), points_text(Decimal("7.00")), points_text("0.75")
    ('6½', '7', '¾')
    >>> points_text(Fraction(28, 5)), points_text(Fraction(1, 3)), points_text(Fraction(-1, 2))
    ('5.6', '0.33', '-½')
    """
    x = Fraction(value)
    sign = "-" if x < 0 else ""
    whole, rest = divmod(abs(x), 1)
    if rest == 0:
        return f"{sign}{whole}"
    if rest in _VULGAR:
        return f"{sign}{whole or ''}{_VULGAR[rest]}"
    exact = Decimal(x.numerator) / Decimal(x.denominator)
    return format(exact.normalize(), "f") if _terminates(x) else f"{exact:.2f}"


def _terminates(x: Fraction) -> bool:
    """Whether ``x`` has a finite decimal expansion."""
    den = x.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    return den == 1
