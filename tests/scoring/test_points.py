"""Points as a chess player writes them (apps/scoring/points.py): the one way pages, exports,
e-mails and qualification reasons write points."""

from decimal import Decimal
from fractions import Fraction as F

import pytest

from apps.scoring.points import points_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (F(6), "6"),
        (F(13, 2), "6½"),
        (F(1, 2), "½"),
        (F(9, 4), "2¼"),
        (F(3, 4), "¾"),
        (F(0), "0"),
        (F(28, 5), "5.6"),
        (F(1, 3), "0.33"),
        (F(-1, 2), "-½"),
    ],
)
def test_points_text_writes_halves_and_quarters_as_chess_players_do(value, text):
    assert points_text(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Decimal("6.50"), "6½"),
        (Decimal("7.00"), "7"),
        (Decimal("0.5"), "½"),
        (Decimal("0"), "0"),
        (Decimal("-1"), "-1"),
        (Decimal("2.10"), "2.1"),
        ("29.0", "29"),
        ("5.5", "5½"),
        (3, "3"),
    ],
)
def test_stored_points_are_written_the_same_way(value, text):
    assert points_text(value) == text
