"""A results file with a NUL character is refused by line, never a server error (issue 26,
item 6): PostgreSQL's text cannot hold NUL, and a player code with one used to reach the
seat lookup (psycopg's ValueError, a 500). Run on PostgreSQL too (DATABASE_URL=postgres://...).
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.core.errors import ActionError, ErrorCode
from apps.groups.models import Game
from apps.results.imports import import_results
from tests.results.test_bulk_import import (
    FOOLS_MATE,
    csv_file,
    games_of,
    group_url,
    line,
    page_url,
    pgn_game,
    snapshot,
    stage_url,
)
from tests.worlds.published import build_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


def nul_code_csv(games: list[Game]) -> str:
    return csv_file(
        line(games[0], "1-0"),
        f"{games[1].white.code}\x00,{games[1].black.code},0-1,,",
        line(games[2], "1/2-1/2"),
    )


def nul_pgn(games: list[Game]) -> str:
    good = pgn_game(games[0], FOOLS_MATE, "0-1")
    bad_tag = pgn_game(games[1], FOOLS_MATE, "0-1").replace(
        games[1].white.code, games[1].white.code + "\x00", 1
    )
    bad_comment = pgn_game(games[2], "1. f3 {a\x00comment} e5 2. g4 Qh4# 0-1", "0-1")
    return "\n".join([good, bad_tag, bad_comment])


def assert_refused_by_line(error: dict | ActionError, lines: list[int]) -> None:
    details = error["details"] if isinstance(error, dict) else error.details
    assert sorted({d["line"] for d in details}) == lines
    assert all("NUL" in d["message"] for d in details)


def test_the_action_refuses_a_nul_in_a_csv_player_code_by_line(world):
    group = world.group
    before = snapshot(group)
    with pytest.raises(ActionError) as refused:
        import_results(world.users["td"], text=nul_code_csv(games_of(group)), group=group)
    assert refused.value.code == ErrorCode.BAD_ROWS
    assert_refused_by_line(refused.value, [3])
    assert snapshot(group) == before


def test_the_action_refuses_a_nul_in_a_pgn_tag_or_comment_by_line(world):
    group = world.group
    text = nul_pgn(games_of(group))
    with pytest.raises(ActionError) as refused:
        import_results(world.users["td"], text=text, group=group, dry_run=True)
    starts = [n for n, row in enumerate(text.split("\n"), 1) if "\x00" in row]
    assert len(starts) == 2
    assert_refused_by_line(refused.value, starts)


@pytest.mark.parametrize("dry_run", ["1", "0"])
def test_the_api_answers_400_for_a_nul_in_a_csv_or_pgn(world, dry_run):
    group, games = world.group, games_of(world.group)
    client = api_client(world.users["td"])
    query = f"?dry_run={dry_run}"
    response = client.post(group_url(group, query), nul_code_csv(games), content_type="text/csv")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "bad_rows"
    assert_refused_by_line(response.json(), [3])
    response = client.post(
        group_url(group, query), nul_pgn(games), content_type="application/x-chess-pgn"
    )
    assert response.status_code == 400 and response.json()["code"] == "bad_rows"
    upload = SimpleUploadedFile("results.csv", nul_code_csv(games).encode())
    response = client.post(group_url(group, query), {"file": upload}, format="multipart")
    assert response.status_code == 400 and response.json()["code"] == "bad_rows"
    organizer = api_client(world.users["organizer"])
    response = organizer.post(
        stage_url(world.stage, query), nul_code_csv(games), content_type="text/csv"
    )
    assert response.status_code == 400 and response.json()["code"] == "bad_rows"
    assert all(g.result == "" for g in games_of(group)[:3])


def test_the_page_shows_the_nul_line_as_a_bad_line(world, client):
    group = world.group
    client.force_login(world.users["td"])
    upload = SimpleUploadedFile("results.csv", nul_code_csv(games_of(group)).encode())
    response = client.post(page_url("group-results-import", group), {"file": upload})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page and "NUL" in page
