"""The board page of a game played on this server (``…/games/M/play/``): what each visitor
sees, and the forms that work without JavaScript."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import chess
import pytest
from django.urls import reverse

from apps.play.models import Move, PlayedGame
from apps.stages.models import Stage
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks)


def board_url(world) -> str:
    return reverse(
        "game-play",
        args=[world.tournament.slug, world.stage.order, world.group.number, world.game.number],
    )


@pytest.fixture(autouse=True)
def now():
    with mock.patch("django.utils.timezone.now", return_value=START):
        yield


def test_white_sees_the_board_the_clocks_and_the_move_form(client, world):
    client.force_login(world.users["white"])
    page = client.get(board_url(world)).content.decode()
    assert "Your move." in page
    assert 'name="move"' in page and 'name="after_ply" value="0"' in page
    assert "50 days left" in page
    assert world.game.white.name in page and world.game.black.name in page


def test_black_waits_and_the_public_sees_no_forms(client, world):
    client.force_login(world.users["black"])
    page = client.get(board_url(world)).content.decode()
    assert "White to move." in page and 'name="move"' not in page
    client.logout()
    page = client.get(board_url(world)).content.decode()
    assert "White to move." in page and "csrfmiddlewaretoken" not in page.split("data-play")[1]


def game_page_url(world) -> str:
    return reverse(
        "game",
        args=[world.tournament.slug, world.stage.order, world.group.number, world.game.number],
    )


def test_the_game_page_and_my_games_lead_to_the_board_instead_of_a_report(client, world):
    client.force_login(world.users["white"])
    page = client.get(game_page_url(world)).content.decode()
    assert f'href="{board_url(world)}"' in page and "Play on the board" in page
    assert 'id="report"' not in page
    page = client.get(reverse("me")).content.decode()
    assert f'href="{board_url(world)}"' in page


def add_moves(world, sans: list[str]) -> None:
    """Moves stored as the server would have accepted them (the page only reads them)."""
    board = chess.Board()
    for ply, san in enumerate(sans, start=1):
        move = board.parse_san(san)
        Move.objects.create(
            game_id=world.game.pk,
            ply=ply,
            san=san,
            uci=move.uci(),
            played_at=START + timedelta(days=ply),
        )
        board.push(move)
    PlayedGame.objects.filter(pk=world.game.pk).update(ply=len(sans), fen=board.fen())


OPENING = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def test_the_players_see_every_move_with_its_date(client, world):
    add_moves(world, OPENING)
    client.force_login(world.users["black"])
    page = client.get(board_url(world)).content.decode()
    for san in OPENING:
        assert f'<span class="play-san">{san}</span>' in page or f"… {san}<" in page
    assert "2027-01-10 10:00" in page  # the sixth move, six days after the start
    assert "Black to move." not in page and "Your move." not in page  # White's turn
    assert "White to move." in page


@pytest.mark.parametrize(
    ("visibility", "shown"),
    [("finished", 0), ("delayed", 2), ("players", None)],
)
def test_others_see_the_moves_as_the_stage_allows(client, world, visibility, shown):
    Stage.objects.filter(pk=world.stage.pk).update(
        game_visibility=visibility, visibility_delay_moves=2
    )
    add_moves(world, OPENING)
    client.force_login(world.users["stranger"])
    response = client.get(board_url(world))
    if shown is None:
        assert response.status_code == 404
        return
    page = response.content.decode()
    assert page.count('class="play-move"') == shown
    assert 'name="move"' not in page
    # The group's TD sees every move.
    client.force_login(world.users["td"])
    assert client.get(board_url(world)).content.decode().count('class="play-move"') == 6


def test_a_game_not_played_here_has_no_board(client, world):
    Stage.objects.filter(pk=world.stage.pk).update(play_on_server=False)
    PlayedGame.objects.filter(pk=world.game.pk).delete()
    assert client.get(board_url(world)).status_code == 404
    assert "Play on the board" not in client.get(game_page_url(world)).content.decode()
