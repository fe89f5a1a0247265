"""The board page of a game played on this server (``…/games/M/play/``): what each visitor
sees, and the forms that work without JavaScript."""

from __future__ import annotations

from unittest import mock

import pytest
from django.urls import reverse

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
