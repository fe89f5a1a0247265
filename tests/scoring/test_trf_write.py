"""The TRF writer (apps/scoring/trf/write.py): rounds by a proper colouring, the 001 lines,
and what a Swiss group adds. The whole files below were written by the writer before it moved
out of apps/standings/trf_export.py, then moved one column right on the 001 lines to the
TRF-2026 layout (issue 25; tests/scoring/test_trf_columns.py) and given 062/072 lines."""

from collections import Counter
from decimal import Decimal
from fractions import Fraction as F

import pytest

from apps.scoring.tiebreaks import Colour
from apps.scoring.trf.read import parse_trf
from apps.scoring.trf.write import TrfEntry, TrfGame, TrfSwiss, colour_games, write_trf

ENTRIES = [
    TrfEntry(1, "Rossi, Anna", "ITA", 2150, Decimal("1.5"), 1),
    TrfEntry(2, "Novák, Jan", "CZE", None, Decimal("1"), 2),
    TrfEntry(3, "Smith, Bob", "ENG", 1980, Decimal("0.5"), 3),
    TrfEntry(4, "Müller, Eva", "GER", 2001, Decimal("0"), None),
]

SILLI_FILE = (
    "012 Cup — Final — group 1\n"
    "062 4\n"
    "072 3\n"
    "XXR 3\n"
    "001    1      Rossi, Anna                       2150 ITA                         1.5    1  "
    "   2 w 1     4 b -     3 w -\n"
    "001    2      Novák, Jan                             CZE                         1.0    2  "
    "   1 b 0     3 w       4 w -\n"
    "001    3      Smith, Bob                        1980 ENG                         0.5    3  "
    "   4 w =     2 b       1 b -\n"
    "001    4      Müller, Eva                       2001 GER                         0.0       "
    "   3 b =     1 w +     2 b +\n"
)

SWISS_FILE = (
    "012 Swiss\n"
    "062 3\n"
    "072 2\n"
    "XXR 3\n"
    "XXC black1\n"
    "XXA    1  1.0  0.5  0.0\n"
    "XXA    2  1.0  0.5  0.0\n"
    "001    1      Rossi, Anna                       2150 ITA                         1.5    1  "
    "   3 w 0  0000 - U\n"
    "001    2      Novák, Jan                             CZE                         1.0    2  "
    "0000 - U     3 b =\n"
    "001    3      Smith, Bob                        1980 ENG                         0.5    3  "
    "   1 b 1     2 w =\n"
)


def circle(size: int, formula: list[int]) -> list[TrfGame]:
    return [TrfGame(x, (x - 1 + d) % size + 1) for x in range(1, size + 1) for d in formula]


@pytest.mark.parametrize(("size", "rounds"), [(100, 10), (104, 10), (103, 11), (11, 5)])
def test_rounds_are_a_proper_colouring_with_few_rounds(size, rounds):
    formula = [1, 4, 10, 17, 29] if size > 11 else [1, 2]
    coloured = colour_games(circle(size, formula), size)
    per_round = Counter((seat, g.round) for g in coloured for seat in (g.white, g.black))
    assert max(per_round.values()) == 1, "no player has two games in one round"
    assert max(g.round for g in coloured) == rounds


def test_a_group_without_rounds_is_written_with_coloured_rounds_and_its_codes():
    games = [
        TrfGame(1, 2, ("1", "0")),
        TrfGame(3, 4, ("=", "=")),
        TrfGame(2, 3),
        TrfGame(4, 1, ("+", "-")),
        TrfGame(1, 3, ("-", "-")),
        TrfGame(2, 4, ("-", "+")),
    ]
    text = write_trf("Cup — Final — group 1", ENTRIES, colour_games(games, 4), 3)
    assert text == SILLI_FILE
    assert [p.points for p in parse_trf(text).players] == [F(3, 2), 1, F(1, 2), 0]


def test_a_swiss_group_writes_its_rounds_colour_virtual_points_and_byes():
    games = [TrfGame(1, 3, ("0", "1"), 1), TrfGame(3, 2, ("=", "="), 2)]
    swiss = TrfSwiss(
        total_rounds=3,
        first_colour=Colour.BLACK,
        byes={2: 1, 1: 2},
        virtual_points={1: {1: 2, 2: 1}, 2: {1: 2, 2: 1}, 3: {}},
    )
    assert write_trf("Swiss", ENTRIES[:3], games, 3, swiss=swiss) == SWISS_FILE


def test_a_game_without_a_round_is_refused():
    with pytest.raises(ValueError, match="has no round"):
        write_trf("Cup", ENTRIES[:2], [TrfGame(1, 2)], 1)
