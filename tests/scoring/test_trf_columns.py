"""The TRF writer against the TRF-2026 column layout (issue 25, item 2).

The reader here is written from the specification (FIDE Handbook C.04 Annex 2, "Tournament
Report File Format Version 2026", player section and round results; the ``XXA`` line of the
JaVaFo AUM's TRF(x) that bbpPairings reads), not from the writer's constants: each field is
taken from its 1-based columns, and every column between fields must be blank. Read back with
the project's own reader, a one-column shift went unnoticed: other readers saw "aezva, Sofia"
rated 139 for "Gaezva, Sofia" 2139, and 0 points at 10 or more.
"""

from decimal import Decimal

import pytest

from apps.scoring.tiebreaks import Colour
from apps.scoring.trf.write import TrfEntry, TrfGame, TrfSwiss, colour_games, write_trf

# TRF-2026, player section: (first column, last column) of each field, 1-based, inclusive.
PLAYER_FIELDS = {
    "code": (1, 3),
    "start_rank": (5, 8),
    "sex": (10, 10),
    "title": (11, 13),
    "name": (15, 47),
    "rating": (49, 52),
    "federation": (54, 56),
    "fide_id": (58, 68),
    "birth": (70, 79),
    "points": (81, 84),
    "rank": (86, 89),
}
FIRST_ROUND = 92  # round r's cell starts at 92 + 10 (r - 1)
ROUND_FIELDS = {"opponent": (0, 3), "colour": (5, 5), "result": (7, 7)}  # offsets in a cell


def field(line: str, first: int, last: int) -> str:
    return line[first - 1 : last].ljust(last - first + 1)


def read_player(line: str) -> dict:
    """A ``001`` line by the specification's columns; gaps between fields must be blank."""
    used = set()
    for first, last in PLAYER_FIELDS.values():
        used.update(range(first, last + 1))
    record = {name: field(line, *cols).strip() for name, cols in PLAYER_FIELDS.items()}
    for column in range(1, FIRST_ROUND):
        if column not in used:
            assert field(line, column, column) == " ", f"column {column} must be blank: {line!r}"
    rounds = []
    start = FIRST_ROUND
    while start <= len(line):
        cell = {n: field(line, start + a, start + b) for n, (a, b) in ROUND_FIELDS.items()}
        for gap in (4, 6, 8, 9):
            assert field(line, start + gap, start + gap) == " ", f"cell at {start}: {line!r}"
        rounds.append(cell)
        start += 10
    record["rounds"] = rounds
    return record


def read_xxa(line: str) -> tuple[int, list[str]]:
    """``XXA NNNN pp.p pp.p …``: the player in columns 5–8, then one 4-column value a round
    from column 10, each followed by one blank."""
    assert line[:3] == "XXA" and line[3] == " " and line[8] == " "
    values = []
    start = 10
    while start <= len(line):
        values.append(field(line, start, start + 3))
        if start + 4 <= len(line):
            assert field(line, start + 4, start + 4) == " "
        start += 5
    return int(field(line, 5, 8)), values


def players(text: str) -> dict[int, dict]:
    records = [read_player(line) for line in text.splitlines() if line.startswith("001")]
    return {int(r["start_rank"]): r for r in records}


ENTRIES = [
    TrfEntry(1, "Gaezva, Sofia", "UZB", 2139, Decimal("10"), 1),
    TrfEntry(2, "Ørsted, Åse", "DEN", None, Decimal("9.5"), 2),
    TrfEntry(3, "A" * 40, "ITA", 1800, Decimal("0.5"), 10),
    TrfEntry(12, "Short, Al", "ENG", 2500, Decimal("0"), None),
]


def test_every_field_of_a_player_line_is_in_its_trf_2026_columns():
    games = [TrfGame(1, 2, ("1", "0"), 1), TrfGame(3, 12, ("=", "="), 1), TrfGame(12, 1)]
    text = write_trf("Cup", ENTRIES, colour_games(games, 12), 2)
    by_rank = players(text)
    assert by_rank[1] | {"rounds": None} == {
        "code": "001",
        "start_rank": "1",
        "sex": "",
        "title": "",
        "name": "Gaezva, Sofia",
        "rating": "2139",
        "federation": "UZB",
        "fide_id": "",
        "birth": "",
        "points": "10.0",
        "rank": "1",
        "rounds": None,
    }
    assert (by_rank[2]["name"], by_rank[2]["rating"], by_rank[2]["points"]) == (
        "Ørsted, Åse",
        "",
        "9.5",
    )
    assert by_rank[3]["name"] == "A" * 33 and by_rank[3]["rank"] == "10"
    assert by_rank[12]["rank"] == "" and by_rank[12]["points"] == "0.0"
    # the round cells: opponent in 92-95, colour in 97, result in 99
    cells = {
        rank: [(c["opponent"], c["colour"], c["result"]) for c in r["rounds"]]
        for rank, r in by_rank.items()
    }
    assert ("   2", "w", "1") in cells[1] and ("   1", "b", "0") in cells[2]
    assert ("  12", "w", "=") in cells[3] and ("   3", "b", "=") in cells[12]


def test_the_tournament_lines_start_in_column_5():
    text = write_trf("Cup — Final", ENTRIES, colour_games([TrfGame(1, 2, ("1", "0"))], 12), 1)
    lines = {line[:3]: line for line in text.splitlines() if not line.startswith("001")}
    assert lines["012"][3] == " " and lines["012"][4:] == "Cup — Final"
    assert lines["062"][4:] == "4"  # number of players
    assert lines["072"][4:] == "3"  # number of rated players
    assert lines["XXR"][4:] == "1"


def test_a_swiss_file_writes_its_acceleration_lines_in_their_columns():
    swiss = TrfSwiss(
        total_rounds=3,
        first_colour=Colour.WHITE,
        virtual_points={1: {1: 2, 2: 1}, 12: {1: 2}},
    )
    text = write_trf("Swiss", ENTRIES, [TrfGame(1, 12, ("1", "0"), 1)], 3, swiss=swiss)
    xxa = dict(read_xxa(line) for line in text.splitlines() if line.startswith("XXA"))
    assert xxa == {1: [" 1.0", " 0.5", " 0.0"], 12: [" 1.0", " 0.0", " 0.0"]}
    assert "XXC white1" in text.splitlines()


def test_notes_are_comment_lines():
    text = write_trf("Cup", ENTRIES[:2], [TrfGame(1, 2, ("1", "0"), 1)], 1, notes=["round 2 …"])
    assert "### round 2 …" in text.splitlines()


@pytest.mark.parametrize("points", [Decimal("100"), Decimal("-10")])
def test_points_that_do_not_fit_four_columns_are_refused(points):
    entry = TrfEntry(1, "Big, Score", "ITA", None, points, 1)
    with pytest.raises(ValueError, match="81-84"):
        write_trf("Cup", [entry], [], 1)
