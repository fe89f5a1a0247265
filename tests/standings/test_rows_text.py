"""How a group's stored rows are written, pinned to ``groups.ROWS_TEXT_VERSION``.

A recompute keeps the stored rows when they carry the fingerprint of the rows it computed,
and that fingerprint is taken of what the rows are made from and of ``ROWS_TEXT_VERSION``,
not of their text. So a change to how a row is written (the JSON, a figure's decimals, a
shared place) must move the version on, or groups whose results did not change would keep
rows written the old way. This test fails on such a change until both the version and the
text below are brought up to date together.

Also: the fingerprint follows every part of a row, and only those (no database needed)."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

from apps.groups.models import Group
from apps.stages.models import Stage, Tournament
from apps.standings import groups
from apps.standings.groups import RESULT_NUMBERS, GroupRead, table_of

# Six players, a round robin: a win, draws, a forfeit, games in progress, 104 withdrawn,
# 105 and 106 with no game finished (a shared place).
SEATS = [(101, 1, 0), (102, 2, 0), (103, 3, 0), (104, 4, 1), (105, 5, 0), (106, 6, 0)]
GAMES = [
    (101, 102, RESULT_NUMBERS["1-0"]),
    (103, 104, RESULT_NUMBERS["1/2-1/2"]),
    (101, 103, RESULT_NUMBERS["1/2-1/2"]),
    (102, 104, RESULT_NUMBERS["+-"]),
    (101, 104, RESULT_NUMBERS[""]),
    (102, 103, RESULT_NUMBERS["0-1"]),
    (105, 106, RESULT_NUMBERS[""]),
]

PINNED_VERSION = 1
PINNED_ROWS = [
    (
        '{"entrant_id": 103, "seat": 3, "position": 1, "place": "1", "points": "2", '
        '"finished": 3, "scheduled": 3, "withdrawn": false, "figures": {"points": "2", '
        '"games": "3", "gms": "3", "rgp": "2", "bh": "3", "bh_c1": "2.5", "bh_c2": "1.5", '
        '"ts": "10", "ts_cut1": "13.333333", "ts_median": "7.5", "sb": "2", "wins": "1", '
        '"black_games": "2"}}'
    ),
    (
        '{"entrant_id": 101, "seat": 1, "position": 2, "place": "2", "points": "1.5", '
        '"finished": 2, "scheduled": 3, "withdrawn": false, "figures": {"points": "1.5", '
        '"games": "2", "gms": "2", "rgp": "1.5", "bh": "3", "bh_c1": "2", "bh_c2": "0", '
        '"ts": "10", "ts_cut1": "13.333333", "ts_median": "0", "sb": "2", "wins": "1", '
        '"black_games": "0"}}'
    ),
    (
        '{"entrant_id": 102, "seat": 2, "position": 3, "place": "3", "points": "1", '
        '"finished": 3, "scheduled": 3, "withdrawn": false, "figures": {"points": "1", '
        '"games": "3", "gms": "2", "rgp": "0", "bh": "4", "bh_c1": "3.5", "bh_c2": "2", '
        '"ts": "17.5", "ts_cut1": "15", "ts_median": "0", "sb": "0.5", "wins": "1", '
        '"black_games": "1"}}'
    ),
    (
        '{"entrant_id": 104, "seat": 4, "position": 4, "place": "4", "points": "0.5", '
        '"finished": 2, "scheduled": 3, "withdrawn": true, "figures": {"points": "0.5", '
        '"games": "2", "gms": "1", "rgp": "0.5", "bh": "3", "bh_c1": "2", "bh_c2": "0", '
        '"ts": "16.666667", "ts_cut1": "0", "ts_median": "0", "sb": "1", "wins": "0", '
        '"black_games": "1"}}'
    ),
    (
        '{"entrant_id": 105, "seat": 5, "position": 5, "place": "5-6", "points": "0", '
        '"finished": 0, "scheduled": 1, "withdrawn": false, "figures": {"points": "0", '
        '"games": "0", "gms": "0", "rgp": "0", "bh": "0", "bh_c1": "0", "bh_c2": "0", "ts": "0", '
        '"ts_cut1": "0", "ts_median": "0", "sb": "0", "wins": "0", "black_games": "0"}}'
    ),
    (
        '{"entrant_id": 106, "seat": 6, "position": 6, "place": "5-6", "points": "0", '
        '"finished": 0, "scheduled": 1, "withdrawn": false, "figures": {"points": "0", '
        '"games": "0", "gms": "0", "rgp": "0", "bh": "0", "bh_c1": "0", "bh_c2": "0", "ts": "0", '
        '"ts_cut1": "0", "ts_median": "0", "sb": "0", "wins": "0", "black_games": "0"}}'
    ),
]


def table(seats=SEATS, games=GAMES, tiebreak=Tournament.TieBreak.TORINO):
    tournament = Tournament(
        slug="pinned",
        games_per_player=5,
        points_win=Decimal("1"),
        points_draw=Decimal("0.5"),
        points_loss=Decimal("0"),
        tiebreak=tiebreak,
    )
    stage = Stage(tournament=tournament, order=1, format=Stage.Format.ROUND_ROBIN)
    group = Group(pk=1, stage=stage, number=1, size=len(seats))
    return table_of(group, GroupRead(seats, games))


def text(made) -> str:
    return groups._rows_json(list(groups.table_rows(made)))


def test_how_a_row_is_written_is_pinned_to_the_rows_text_version():
    rows = text(table())
    pinned = "[" + ", ".join(PINNED_ROWS) + "]"
    assert (groups.ROWS_TEXT_VERSION, rows) == (PINNED_VERSION, pinned), (
        "how a row is written changed: move groups.ROWS_TEXT_VERSION on and pin the new text"
    )
    assert [row["place"] for row in json.loads(rows)] == ["1", "2", "3", "4", "5-6", "5-6"]


def test_the_same_rows_have_the_same_fingerprint():
    assert groups._fingerprint(table()) == groups._fingerprint(table())
    # Another chain that orders these players the same: the same rows, the same fingerprint.
    buchholz = table(tiebreak=Tournament.TieBreak.BUCHHOLZ)
    assert text(buchholz) == text(table())
    assert groups._fingerprint(buchholz) == groups._fingerprint(table())


def test_the_fingerprint_follows_every_part_of_a_row():
    base = groups._fingerprint(table())
    changed_result = [*GAMES[:5], (102, 103, RESULT_NUMBERS["1-0"]), GAMES[6]]
    other_seat = [(101, 2, 0), (102, 1, 0), *SEATS[2:]]
    not_withdrawn = [*SEATS[:3], (104, 4, 0), *SEATS[4:]]
    finished = [*GAMES[:4], (101, 104, RESULT_NUMBERS["--"]), *GAMES[5:]]
    variants = {
        "a result": table(games=changed_result),
        "a seat": table(seats=other_seat),
        "a withdrawal": table(seats=not_withdrawn),
        "a game finished": table(games=finished),
    }
    for what, made in variants.items():
        assert text(made) != text(table()), what
        assert groups._fingerprint(made) != base, what


def test_a_version_moved_on_changes_every_fingerprint(monkeypatch):
    base = groups._fingerprint(table())
    monkeypatch.setattr(groups, "ROWS_TEXT_VERSION", PINNED_VERSION + 1)
    assert groups._fingerprint(table()) != base


def test_a_figure_past_64_bits_still_has_a_fingerprint_of_its_own():
    made = table()
    huge = [2**70 + n for n in made.figures.ts]
    past = dataclasses.replace(made, figures=dataclasses.replace(made.figures, ts=huge))
    assert groups._fingerprint(past) != groups._fingerprint(made)
    assert groups._fingerprint(past) == groups._fingerprint(
        dataclasses.replace(made, figures=dataclasses.replace(made.figures, ts=list(huge)))
    )
