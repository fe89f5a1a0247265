"""Games as PGN downloads: one game, a group's games, a stage's games (streamed); the tags,
the moves and the results as PGN writes them (forfeits included); who may read them."""

from __future__ import annotations

import io
from datetime import date

import chess.pgn
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from apps.entrants.models import Entrant
from apps.groups.models import Game, Group
from apps.results import pgn
from apps.results.imports import import_results
from apps.stages.models import Stage
from tests.worlds.published import build_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db

SCHOLARS_MATE = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"
CONTENT_TYPE = "application/x-chess-pgn; charset=utf-8"


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


def games_of(group: Group) -> list[Game]:
    return list(
        Game.objects.filter(group=group).select_related("white", "black").order_by("number")
    )


def body(answer) -> str:
    content = b"".join(answer.streaming_content) if answer.streaming else answer.content
    return content.decode("utf-8")


def read_all(text: str) -> list[chess.pgn.Game]:
    games, handle = [], io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def download(route: str, pk: int, user=None):
    return api_client(user).get(reverse(route, args=[pk]))


def scored_game(world) -> Game:
    """The group's first game, finished 1-0 on 2025-03-01 with a score, by a result import
    (as a PGN file with a comment and a variation, which the download leaves out)."""
    game = games_of(world.group)[0]
    text = "\n".join(
        [
            '[Event "Club championship"]',
            '[Site "?"]',
            '[Date "2025.03.01"]',
            '[Round "?"]',
            f'[White "{game.white.name}"]',
            f'[Black "{game.black.name}"]',
            '[Result "1-0"]',
            f'[WhiteCode "{game.white.code}"]',
            f'[BlackCode "{game.black.code}"]',
            "",
            "1. e4 { best by test } e5 (1... c5) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0",
            "",
        ]
    )
    import_results(world.users["td"], group=world.group, text=text)
    game.refresh_from_db()
    assert game.pgn and game.finished_on == date(2025, 3, 1)
    return game


# ---------------------------------------------------------------------------
# One game
# ---------------------------------------------------------------------------


def test_a_scored_game_round_trips_with_its_tags_and_moves(world):
    game = scored_game(world)
    Entrant.objects.filter(pk=game.white_id).update(rating=2345, nation="ITA")
    Entrant.objects.filter(pk=game.black_id).update(rating=None, nation="GER")
    game = Game.objects.select_related("white", "black").get(pk=game.pk)

    answer = download("api-game-pgn", game.pk)

    assert answer.status_code == 200
    assert answer["Content-Type"] == CONTENT_TYPE
    slug = world.tournament.slug
    order = world.stage.order
    assert answer["Content-Disposition"] == (
        f'attachment; filename="{slug}-stage-{order}-group-1-game-{game.number}.pgn"'
    )
    [read] = read_all(body(answer))
    headers = read.headers
    assert dict(headers) == {
        "Event": "Accounts Cup, Preliminary",
        "Site": pgn.SITE,
        "Date": "2025.03.01",
        "Round": f"1.{game.number}",
        "White": game.white.name,
        "Black": game.black.name,
        "Result": "1-0",
        "WhiteElo": "2345",
        "WhiteFed": "ITA",
        "BlackFed": "GER",
        "WhiteCode": game.white.code,
        "BlackCode": game.black.code,
        "Stage": str(order),
        "Group": "1",
    }
    assert list(headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    expected = chess.pgn.read_game(io.StringIO(SCHOLARS_MATE))
    assert list(read.mainline_moves()) == list(expected.mainline_moves())
    assert read.end().board().is_checkmate()
    # The main line only: the stored comment and variation are left out.
    text = body(answer)
    assert "best by test" not in text and "c5" not in text
    assert text.rstrip().endswith("4. Qxf7# 1-0")


def test_a_game_without_a_score_has_only_its_result(world):
    game = games_of(world.group)[1]
    Game.objects.filter(pk=game.pk).update(result="1/2-1/2")
    text = body(download("api-game-pgn", game.pk))
    [read] = read_all(text)
    assert read.headers["Result"] == "1/2-1/2"
    assert read.headers["Date"] == "????.??.??"
    assert "Termination" not in read.headers
    assert list(read.mainline_moves()) == []
    assert text.split("\n\n")[1].strip() == "1/2-1/2"


def test_a_game_in_progress_is_unterminated(world):
    game = games_of(world.group)[1]
    [read] = read_all(body(download("api-game-pgn", game.pk)))
    assert read.headers["Result"] == "*"
    assert read.headers["Termination"] == "unterminated"


def test_an_adjudicated_result_says_so(world):
    game = games_of(world.group)[1]
    Game.objects.filter(pk=game.pk).update(result="0-1", adjudicated=True)
    [read] = read_all(body(download("api-game-pgn", game.pk)))
    assert (read.headers["Result"], read.headers["Termination"]) == ("0-1", "adjudication")


@pytest.mark.parametrize(
    ("code", "result", "comment"),
    [("+-", "1-0", "Black forfeits"), ("-+", "0-1", "White forfeits"), ("--", "*", "both forfeit")],
)
def test_forfeits_are_written_as_what_they_count_with_a_termination_and_a_comment(
    world, code, result, comment
):
    game = games_of(world.group)[2]
    Game.objects.filter(pk=game.pk).update(result=code)
    text = body(download("api-game-pgn", game.pk))
    [read] = read_all(text)
    assert read.headers["Result"] == result
    assert read.headers["Termination"] == "forfeit"
    assert read.comment == comment
    assert list(read.mainline_moves()) == []
    assert f"{{ {comment} }} {result}" in text


def test_a_stored_score_is_copied_as_text_not_checked_again(world):
    """Scores are checked when they are imported; the download copies the stored main line
    as text (parsing every game again would cost milliseconds a game), so even a score that
    is not legal chess comes out as stored, with this site's tags and result."""
    game = games_of(world.group)[1]
    Game.objects.filter(pk=game.pk).update(result="1-0", pgn="1. e4 e5 2. Ke3 Kf6 1-0")
    text = body(download("api-game-pgn", game.pk))
    assert '[Result "1-0"]' in text
    assert text.rstrip().endswith("1. e4 e5 2. Ke3 Kf6 1-0")


# ---------------------------------------------------------------------------
# A group's and a stage's games
# ---------------------------------------------------------------------------


def test_the_group_download_streams_its_games_by_number(world):
    scored_game(world)
    answer = download("api-group-games-pgn", world.group.pk)
    assert answer.status_code == 200
    assert isinstance(answer, StreamingHttpResponse)
    assert answer["Content-Type"] == CONTENT_TYPE
    slug, order = world.tournament.slug, world.stage.order
    assert answer["Content-Disposition"] == (
        f'attachment; filename="{slug}-stage-{order}-group-1-games.pgn"'
    )
    read = read_all(body(answer))
    games = games_of(world.group)
    assert [g.headers["Round"] for g in read] == [f"1.{g.number}" for g in games]
    assert [g.headers["WhiteCode"] for g in read] == [g.white.code for g in games]
    assert len(list(read[0].mainline_moves())) == 7


def test_the_stage_download_streams_every_game_once_by_group_then_number(world):
    answer = download("api-stage-games-pgn", world.stage.pk)
    assert answer.status_code == 200
    assert isinstance(answer, StreamingHttpResponse)
    assert answer["Content-Type"] == CONTENT_TYPE
    slug, order = world.tournament.slug, world.stage.order
    assert answer["Content-Disposition"] == f'attachment; filename="{slug}-stage-{order}-games.pgn"'
    read = read_all(body(answer))
    expected = list(
        Game.objects.filter(group__stage=world.stage)
        .order_by("group__number", "number")
        .values_list("group__number", "number", "white__code", "black__code")
    )
    assert len(expected) > len(games_of(world.group))  # two groups
    assert [
        (int(g.headers["Group"]), int(g.headers["Round"].split(".")[1]), g.headers["WhiteCode"])
        + (g.headers["BlackCode"],)
        for g in read
    ] == expected


def test_the_stage_download_reads_games_in_chunks(world, monkeypatch):
    monkeypatch.setattr(pgn, "CHUNK", 5)
    read = read_all(body(download("api-stage-games-pgn", world.stage.pk)))
    assert len(read) == Game.objects.filter(group__stage=world.stage).count()


# ---------------------------------------------------------------------------
# Who may read
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["anonymous", "player", "td", "organizer", "staff"])
def test_a_published_stages_games_are_public(world, role):
    user = world.users[role]
    game = games_of(world.group)[0]
    assert download("api-game-pgn", game.pk, user).status_code == 200
    assert download("api-group-games-pgn", world.group.pk, user).status_code == 200
    assert download("api-stage-games-pgn", world.stage.pk, user).status_code == 200


@pytest.mark.parametrize(
    ("role", "status"),
    [("anonymous", 404), ("player", 404), ("td", 404), ("organizer", 200), ("staff", 200)],
)
def test_an_unpublished_stages_games_are_only_for_its_organizers(world, role, status):
    Stage.objects.filter(pk=world.stage.pk).update(status=Stage.Status.DRAWN)
    user = world.users[role]
    game = games_of(world.group)[0]
    for route, pk in [
        ("api-game-pgn", game.pk),
        ("api-group-games-pgn", world.group.pk),
        ("api-stage-games-pgn", world.stage.pk),
    ]:
        answer = download(route, pk, user)
        assert answer.status_code == status, route
        if status == 404:
            assert answer["Content-Type"] == "application/json"
            assert answer.json()["code"] == "not_found"


def test_the_pages_link_the_downloads(world, client):
    slug, order = world.tournament.slug, world.stage.order
    standings = client.get(reverse("group-standings", args=[slug, order, 1])).content.decode()
    assert reverse("api-group-games-pgn", args=[world.group.pk]) in standings
    ranking = client.get(reverse("stage-ranking", args=[slug, order])).content.decode()
    assert reverse("api-stage-games-pgn", args=[world.stage.pk]) in ranking
