"""The crosstable: cells from each side, counts, places, CSV exports."""

import csv
import io

import pytest

from apps.groups.models import Game
from apps.results.services import enter_result
from apps.standings.crosstable import build, crosstable_csv, standings_csv

pytestmark = pytest.mark.django_db(transaction=True)


def test_cells_counts_and_exports(published_stage, organizer, django_assert_max_num_queries):
    games = list(
        Game.objects.filter(group__stage=published_stage, group__number=1)
        .select_related("group")
        .order_by("number")[:3]
    )
    group = games[0].group
    enter_result(organizer, games[0], "1-0", expected_version=0)
    enter_result(organizer, games[1], "1/2-1/2", expected_version=0)
    enter_result(organizer, games[2], "-+", expected_version=0)
    with django_assert_max_num_queries(6):
        table = build(group)
    assert table.counts == {
        "games": 500,
        "finished": 3,
        "in_progress": 497,
        "forfeits": 1,
        "adjudicated": 0,
    }
    rows = {r.entrant_id: r for r in table.rows}
    white, black = rows[games[0].white_id], rows[games[0].black_id]
    assert white.cells[black.seat].symbol == "1" and white.cells[black.seat].colour == "W"
    assert black.cells[white.seat].symbol == "0" and black.cells[white.seat].colour == "B"
    assert white.cells[black.seat].latest
    assert all(len(r.cells) == 10 for r in table.rows)
    assert table.keys == ["ts", "ts_cut1"]
    lines = list(csv.reader(io.StringIO(crosstable_csv(table))))
    assert len(lines) == 101 and len(lines[0]) == 5 + 100 + 13 + 2
    ranked = list(csv.DictReader(io.StringIO(standings_csv(table))))
    # the first three games are all seat 1's White games: 1 + ½ + 0
    assert ranked[0]["place"] == "1" and ranked[0]["seat"] == "1" and ranked[0]["points"] == "1.50"
