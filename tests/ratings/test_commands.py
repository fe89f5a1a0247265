"""``rating_report`` and ``norms`` on TRF files as an operator runs them (docs/interfaces.md §7)."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from fractions import Fraction as F
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.scoring.trf.read import decode_trf, parse_trf
from tests.ratings.worked_example import points, table, tables

ROOT = Path(__file__).resolve().parents[2]
TRF_DIR = ROOT / "tests" / "data" / "trf"
REPORT_KEYS = ["id", "rating", "games", "score", "expected", "k", "change", "new_rating"]
REPORT_KEYS += ["provisional"]
NORM_KEYS = ["id", "games", "score", "requirement", "norm"]
CODES = {"1": "1", "½": "=", "0": "0", "+": "+", "−": "-"}


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def report(path: Path, *options: str) -> list[dict]:
    return json.loads(run("rating_report", str(path), *options))


def norms(path: Path, level: str) -> list[dict]:
    return json.loads(run("norms", str(path), "--level", level))


def player_line(rank: int, rating: str, cells: list[str]) -> str:
    """A TRF16 001 line: the fixed columns up to 91, then one 10-character cell per round."""
    head = f"001 {rank:4d} m    {'Player':<33} {rating:>4} ITA {rank:>11} 1990/01/01  0.0 {rank:4d}"
    assert len(head) == 89
    return head + "  " + "  ".join(cells)


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "event.trf"
    path.write_text("012 Test\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


SMALL = [
    # 1 and 2 rated, 3 rated 0 (unrated), 4 blank (unrated), 5 rated
    player_line(1, "2300", ["   2 w 1", "   3 b 1", "   5 w W", "   2 b  ", "0000 - H"]),
    player_line(2, "2200", ["   1 b 0", "   5 w =", "   4 b 1", "   1 w  ", "   3 w +"]),
    player_line(3, "0", ["   5 b =", "   1 w 0", "0000 - U", "   4 w =", "   2 b -"]),
    player_line(4, "", ["0000 - Z", "0000 - Z", "   2 w 0", "   3 b =", "   5 w 1"]),
    player_line(5, "2450", ["   3 w =", "   2 b =", "   1 b L", "0000 - F", "   4 b 0"]),
]


def test_a_small_file_counts_only_played_rated_games_against_rated_opponents(tmp_path):
    lines = report(write(tmp_path, SMALL), "--rating-games", "10")
    assert [list(line) for line in lines] == [REPORT_KEYS] * 5
    by_id = {line["id"]: line for line in lines}
    # 1: beat 2 (rated); the win against 3 (rated 0: unrated), W (not rated), the game
    # without a result and the bye do not count
    assert by_id[1] == {
        "id": 1,
        "rating": 2300,
        "games": 1,
        "score": 1.0,
        "expected": 0.64,
        "k": 40,
        "change": 14.4,
        "new_rating": 2314.4,
        "provisional": False,
    }
    # 2: lost to 1, drew with 5; 4 is unrated, the forfeit does not count
    assert (by_id[2]["games"], by_id[2]["score"], by_id[2]["expected"]) == (2, 0.5, 0.55)
    # the unrated players: their games against rated opponents, provisional
    for unrated, games, score in ((3, 2, 0.5), (4, 2, 1.0)):
        assert by_id[unrated] == {
            "id": unrated,
            "rating": None,
            "games": games,
            "score": score,
            "expected": None,
            "k": None,
            "change": None,
            "new_rating": None,
            "provisional": True,
        }
    assert (by_id[5]["games"], by_id[5]["score"]) == (1, 0.5)
    figures = norms(write(tmp_path, SMALL), "CCE")
    assert [list(f) for f in figures] == [NORM_KEYS] * 5
    assert [(f["games"], f["score"], f["norm"]) for f in figures] == [
        (1, 1.0, False),
        (2, 0.5, False),
        (2, 0.5, False),
        (2, 1.0, False),
        (1, 0.5, False),
    ]
    assert figures[0]["requirement"] == 0.5  # 2150 against 2200: 0.4282… → ½


def test_the_output_is_a_json_array_one_object_a_line(tmp_path):
    text = run("rating_report", str(write(tmp_path, SMALL)))
    rows = text.splitlines()
    assert rows[0] == "[" and rows[-1] == "]" and text.endswith("]\n")
    assert len(rows) == 7 and all(row.startswith('{"id": ') for row in rows[1:-1])


def worked_example_trf(tmp_path: Path) -> Path:
    """docs/ratings.md §5.1 as a TRF file (colours arbitrary)."""
    lines = []
    for row in table("5.1"):
        number = int(row[0])
        cells = [
            f"{opponent:4d} {'w' if opponent > number else 'b'} {CODES[symbol]}"
            for opponent, symbol in enumerate(row[4:14], start=1)
            if opponent != number
        ]
        lines.append(player_line(number, "" if row[2] == "—" else row[2], cells))
    return write(tmp_path, lines)


def interface_examples() -> list[str]:
    """The two example objects of docs/interfaces.md §7."""
    text = (ROOT / "docs" / "interfaces.md").read_text(encoding="utf-8")
    section = text[text.index("## 7. Rating reports") :]
    return re.findall(r"^    (\{.*\})$", section, flags=re.MULTILINE)


def test_the_worked_example_as_a_trf_file_gives_the_pages_figures(tmp_path):
    path = worked_example_trf(tmp_path)
    lines = report(path)
    doc = {int(row[0]): row for row in table("5.3")}
    for line in lines:
        row = doc[line["id"]]
        if line["provisional"]:
            assert row[8] == "provisional"
        elif line["id"] != 6:  # Fontaine's K 40 needs his 12 games before; the file gives 30
            assert (line["k"], line["change"], line["new_rating"]) == tuple(
                float(cell) for cell in row[6:9]
            )
    assert report(path, "--rating-games", "12")[5]["change"] == 56.0
    for level, rows in zip(("IM", "CCM"), tables("5.6"), strict=True):
        figures = [
            [f["id"], f["games"], F(f["score"]), F(f["requirement"]), f["norm"]]
            for f in norms(path, level)
        ]
        assert figures == [
            [int(row[0]), int(row[1]), points(row[2]), points(row[4]), row[5].endswith("✓")]
            for row in rows
        ]
    rating_example, norm_example = interface_examples()
    assert json.loads(rating_example) == lines[3]
    assert json.loads(norm_example) == norms(path, "IM")[3]
    assert rating_example + "," in run("rating_report", str(path)).splitlines()


@pytest.mark.parametrize("name", sorted(p.name for p in TRF_DIR.glob("*.trf")))
def test_every_real_file_gives_one_object_per_player_and_agrees_with_itself(name):
    path = TRF_DIR / name
    records = parse_trf(decode_trf(path.read_bytes())).players
    lines, figures = report(path), norms(path, "IM")
    assert [line["id"] for line in lines] == [r.start_rank for r in records]
    assert [list(line) for line in lines] == [REPORT_KEYS] * len(records)
    assert [list(f) for f in figures] == [NORM_KEYS] * len(records)
    for line, figure, record in zip(lines, figures, records, strict=True):
        assert line["rating"] == (record.rating or None)
        assert line["provisional"] == (line["rating"] is None)
        assert (line["games"], line["score"]) == (figure["games"], figure["score"])
        assert figure["norm"] == (figure["games"] >= 8 and figure["score"] >= figure["requirement"])
        if not line["provisional"]:
            assert line["k"] * line["games"] <= 700
            assert line["new_rating"] == pytest.approx(line["rating"] + line["change"])


def test_the_uzchess_round_robin_agrees_with_a_float_computation():
    """Ten rated players, nine rounds: each line recomputed with math.pow, independently."""
    path = TRF_DIR / "uzchess_cup_2025_from_pgn.trf"
    records = {r.start_rank: r for r in parse_trf(decode_trf(path.read_bytes())).players}
    for line in report(path):
        record = records[line["id"]]
        opponents = [records[c.opponent].rating for c in record.rounds]
        expected = sum(
            1 / (1 + math.pow(10, -max(-400, min(400, record.rating - r)) / 400)) for r in opponents
        )
        score = sum({"1": 1, "=": 0.5, "0": 0}[c.result] for c in record.rounds)
        assert (line["games"], line["score"], line["k"]) == (9, score, 10)
        assert line["expected"] == pytest.approx(expected, abs=0.005)
        assert line["change"] == round(10 * (score - expected), 1)


@pytest.mark.parametrize(
    "content, message",
    [
        ("012 A CSV\ncode,name\n", "has no player (001) lines: it is not a TRF file"),
        ("001    x m    Bad\n", "line 1: start rank (columns 5-8) is 'x'"),
        ("XXR nine\n", "line 1: XXR needs a number of rounds"),
        (player_line(1, "2000", ["   7 w 1"]), "player 1, round 1: opponent 7 has no 001 line"),
    ],
)
@pytest.mark.parametrize("command", [["rating_report"], ["norms", "--level", "IM"]])
def test_a_bad_file_exits_2_with_a_sentence(tmp_path, command, content, message):
    path = tmp_path / "bad.trf"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        run(command[0], str(path), *command[1:])
    assert error.value.returncode == 2
    assert message in str(error.value)


def test_a_missing_file_exits_2(tmp_path):
    with pytest.raises(CommandError) as error:
        run("rating_report", str(tmp_path / "none.trf"))
    assert error.value.returncode == 2
    assert str(error.value).startswith(f"cannot read {tmp_path / 'none.trf'}:")


def test_a_negative_number_of_games_before_exits_2(tmp_path):
    with pytest.raises(CommandError) as error:
        run("rating_report", str(write(tmp_path, SMALL)), "--rating-games", "-1")
    assert error.value.returncode == 2
    assert "--rating-games is a number of games, not -1" in str(error.value)


def test_from_the_command_line_a_bad_file_or_level_exits_2_with_a_sentence(tmp_path):
    path = tmp_path / "bad.trf"
    path.write_text("hello\n", encoding="utf-8")
    for args in (["rating_report", str(path)], ["norms", str(TRF_DIR / "x.trf"), "--level", "XX"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
    assert "invalid choice: 'XX'" in done.stderr
