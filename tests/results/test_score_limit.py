"""One size limit for a game score, whatever road it comes in by (issue 26, item 8): the
results import (CSV cell or PGN file, page or API), result entry (page, API, the action) and
players' reports all refuse a score longer than ``PGN_MAX_LENGTH`` characters (as stored),
with a sentence naming the limit. The import used to store any size (a 5 MB comment made a
10 MB game page).
"""

from __future__ import annotations

import pytest

from apps.core.errors import ActionError, ErrorCode
from apps.groups.models import Game
from apps.results.imports import import_results
from apps.results.models import PGN_MAX_LENGTH
from apps.results.services import enter_result
from tests.results.test_bulk_import import (
    FOOLS_MATE,
    csv_file,
    games_of,
    group_url,
    line,
    pgn_game,
)
from tests.worlds.published import build_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db

LIMIT_WORDS = f"{PGN_MAX_LENGTH:,}"


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


def commented(size: int) -> str:
    """Fool's mate with a comment making the movetext ``size`` characters or a few more."""
    padding = max(0, size - len(FOOLS_MATE) - 3)
    return "1. f3 {" + "x" * padding + "} e5 2. g4 Qh4# 0-1"


def assert_too_long(messages: list[str]) -> None:
    assert messages and all("characters" in m and LIMIT_WORDS in m for m in messages), messages


def test_the_import_refuses_a_csv_cell_longer_than_the_limit(world):
    group = world.group
    games = games_of(group)
    text = csv_file(
        line(games[0], "0-1", pgn=commented(PGN_MAX_LENGTH + 10)), line(games[1], "1-0")
    )
    with pytest.raises(ActionError) as refused:
        import_results(world.users["td"], text=text, group=group)
    assert refused.value.code == ErrorCode.BAD_ROWS
    assert [d["line"] for d in refused.value.details] == [2]
    assert_too_long([d["message"] for d in refused.value.details])
    assert all(g.result == "" and g.pgn == "" for g in games_of(group)[:2])


def test_the_import_refuses_a_pgn_game_longer_than_the_limit(world):
    group = world.group
    games = games_of(group)
    big = pgn_game(games[0], commented(PGN_MAX_LENGTH + 10), "0-1")
    small = pgn_game(games[1], FOOLS_MATE, "0-1")
    with pytest.raises(ActionError) as refused:
        import_results(world.users["td"], text=big + "\n" + small, group=group, dry_run=True)
    assert [d["line"] for d in refused.value.details] == [1]
    assert_too_long([d["message"] for d in refused.value.details])


def test_the_api_import_answers_400_for_a_long_score(world):
    group = world.group
    games = games_of(group)
    big = pgn_game(games[0], commented(PGN_MAX_LENGTH + 10), "0-1")
    response = api_client(world.users["td"]).post(
        group_url(group), big, content_type="application/x-chess-pgn"
    )
    assert response.status_code == 400 and response.json()["code"] == "bad_rows"
    assert_too_long([d["message"] for d in response.json()["details"]])


def test_a_score_just_under_the_limit_is_imported(world):
    group = world.group
    games = games_of(group)
    # The stored score adds the tags (names, codes, event): leave room for them.
    text = csv_file(line(games[0], "0-1", pgn=commented(PGN_MAX_LENGTH - 2000)))
    report = import_results(world.users["td"], text=text, group=group)
    assert report.applied == 1
    stored = Game.objects.get(pk=games[0].pk).pgn
    assert PGN_MAX_LENGTH - 2000 < len(stored) <= PGN_MAX_LENGTH


def test_result_entry_refuses_a_stored_score_over_the_limit(world):
    """The movetext fits the field, but the score as stored (with its tags) does not."""
    game = games_of(world.group)[0]
    with pytest.raises(ActionError) as refused:
        enter_result(
            world.users["td"], game, "0-1", expected_version=0, pgn=commented(PGN_MAX_LENGTH - 5)
        )
    assert refused.value.code == ErrorCode.INVALID_INPUT
    assert_too_long([refused.value.message])
    assert Game.objects.get(pk=game.pk).result == ""


def test_the_result_api_refuses_a_long_score_naming_the_limit(world):
    game = games_of(world.group)[0]
    response = api_client(world.users["td"]).post(
        f"/api/games/{game.pk}/result/",
        {"result": "0-1", "version": 0, "pgn": commented(PGN_MAX_LENGTH + 10)},
        format="json",
    )
    assert response.status_code == 400
    assert LIMIT_WORDS in response.json()["message"] or any(
        LIMIT_WORDS in d["message"] or str(PGN_MAX_LENGTH) in d["message"]
        for d in response.json()["details"]
    )
