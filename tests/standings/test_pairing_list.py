"""The pairing-list CSV of a group and of a Swiss round (issue 25, item 8): docs/interfaces.md
§5 promised it, no route served it. The file has the results import's columns
(``white,black,result,date,pgn``, entrant codes), one game a line; filled in, it imports."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from apps.core.results import Result
from apps.groups.models import Game
from apps.results.imports import import_results
from apps.results.services import enter_result
from tests.office.conftest import user
from tests.office.test_swiss import drawn_and_published, swiss_stage
from tests.worlds.published import build_world

pytestmark = pytest.mark.django_db

FILL = ["1-0", "0-1", "1/2-1/2", "+-", "-+"]


def rows_of(answer) -> list[dict[str, str]]:
    assert answer.status_code == 200, answer.status_code
    assert answer["Content-Type"].startswith("text/csv")
    assert "attachment" in answer["Content-Disposition"]
    text = answer.content.decode()
    assert text.splitlines()[0] == "white,black,result,date,pgn"
    return list(csv.DictReader(io.StringIO(text)))


def filled(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, ["white", "black", "result", "date", "pgn"])
    writer.writeheader()
    for i, row in enumerate(rows):
        if not row["result"]:
            row["result"] = FILL[i % len(FILL)]
            row["date"] = "2026-01-02"
        writer.writerow(row)
    return out.getvalue()


def test_a_groups_pairing_list_filled_in_imports(client, django_capture_on_commit_callbacks):
    world = build_world(django_capture_on_commit_callbacks)
    group, stage = world.group, world.stage
    games = list(
        Game.objects.filter(group=group).select_related("white", "black").order_by("number")
    )
    first = games[0]
    enter_result(world.users["td"], first, "+-", expected_version=first.version)
    address = reverse("group-pairings-csv", args=[stage.tournament.slug, stage.order, group.number])
    rows = rows_of(client.get(address))
    assert [(r["white"], r["black"]) for r in rows] == [(g.white.code, g.black.code) for g in games]
    assert rows[0]["result"] == "'+-"  # as spreadsheets keep it as text; the import reads it
    assert all(r["result"] == "" for r in rows[1:])
    report = import_results(world.users["td"], group=group, text=filled(rows))
    assert (report.applied, report.unchanged) == (len(games) - 1, 1)
    assert all(Result(g.result).finished for g in Game.objects.filter(group=group))
    # linked from the group's page
    page = client.get(reverse("group", args=[stage.tournament.slug, stage.order, group.number]))
    assert address in page.content.decode()


def test_a_swiss_rounds_pairing_list_filled_in_imports(client, django_capture_on_commit_callbacks):
    organizer = user("swissorg")
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=11, rounds=3), django_capture_on_commit_callbacks
    )
    group = stage.groups.get()
    args = [stage.tournament.slug, stage.order, group.number]
    address = reverse("group-round-pairings-csv", args=[*args, 1])
    rows = rows_of(client.get(address))
    games = Game.objects.filter(group=group, round=1).select_related("white", "black")
    assert sorted((r["white"], r["black"]) for r in rows) == sorted(
        (g.white.code, g.black.code) for g in games
    )
    assert len(rows) == 5  # 11 players: five games and the bye (not a line to fill in)
    report = import_results(organizer, group=group, text=filled(rows))
    assert report.applied == 5
    page = client.get(reverse("group", args=args))
    assert address in page.content.decode()
    # a round not paired yet has no list (round 2 is paired by the last result's task, which
    # this test does not run)
    assert client.get(reverse("group-round-pairings-csv", args=[*args, 3])).status_code == 404
