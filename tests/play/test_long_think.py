"""A declared long think (docs/play.md §4) and a claim sent to the TD by e-mail."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.groups.models import Game
from apps.play.services import claim, declare_long_think, end_if_time_ran_out, make_move
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    built = build_play_world(django_capture_on_commit_callbacks)
    # A clock generous enough that only the silence rule could end the game.
    built.stage.tc_days, built.stage.doubling_after = 200, None
    built.stage.save()
    return built


def refused(code, **kwargs):
    with pytest.raises(ActionError) as error:
        declare_long_think(**kwargs)
    assert error.value.code == code, error.value.message
    return error.value.message


def test_a_declared_long_think_lifts_the_loss_by_silence_for_that_move(world):
    white = world.users["white"]
    played = declare_long_think(actor=white, game_id=world.game.pk, now=START + 10 * DAY)
    assert played.long_think_white and not played.long_think_black
    fresh = world.fresh()
    assert fresh.long_think_white and fresh.version == 1
    # The next thing due is the 35-day reminder, no longer a loss at 40 days.
    assert fresh.next_reminder_at == START + 14 * DAY
    event = AuditEvent.objects.get(action=Action.PLAY_LONG_THINK_DECLARED)
    assert event.actor == white and event.data == {"ply": 0, "side": "white", "silence_days": 40}
    assert end_if_time_ran_out(game_id=world.game.pk, now=START + 41 * DAY) is None
    # The move ends the declaration: it was for that move only.
    make_move(actor=white, game_id=world.game.pk, move="e4", after_ply=0, now=START + 45 * DAY)
    assert not world.fresh().long_think_white
    assert Game.objects.get(pk=world.game.pk).result == ""


def test_a_long_think_is_declared_by_the_player_to_move_once_before_the_limit(world):
    game_id = world.game.pk
    refused(ErrorCode.WRONG_STATUS, actor=world.users["black"], game_id=game_id, now=START + DAY)
    refused(ErrorCode.PERMISSION_DENIED, actor=world.users["td"], game_id=game_id, now=START)
    declare_long_think(actor=world.users["white"], game_id=game_id, now=START + DAY)
    message = refused(
        ErrorCode.WRONG_STATUS, actor=world.users["white"], game_id=game_id, now=START + 2 * DAY
    )
    assert "already" in message


def test_a_declaration_after_the_silence_limit_comes_too_late(world):
    message = refused(
        ErrorCode.WRONG_STATUS,
        actor=world.users["white"],
        game_id=world.game.pk,
        now=START + 41 * DAY,
    )
    assert "by silence" in message
    assert Game.objects.get(pk=world.game.pk).result == "0-1"
    assert not world.fresh().long_think_white


def test_a_claim_to_the_td_e_mails_the_groups_td(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        claim(
            actor=world.users["white"],
            game_id=world.game.pk,
            kind="tablebase",
            reason="KRK is a win",
            now=START,
        )
    [mail] = mailoutbox
    assert mail.to == [world.users["td"].email]
    assert world.game.white.name in mail.subject
    assert "tablebase" in mail.body and "KRK is a win" in mail.body
    # A claim the server decides sends the TD nothing.
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ActionError):
        claim(actor=world.users["white"], game_id=world.game.pk, kind="repetition", now=START)
    assert mailoutbox == []


def test_the_api_and_the_board_page_declare_a_long_think(world):
    from rest_framework.test import APIClient

    from apps.play.pages import board_url

    black = APIClient()
    black.force_authenticate(world.users["black"])
    url = f"/api/games/{world.game.pk}/long-think/"
    assert black.post(url, secure=True).status_code == 409  # not Black's move
    white = APIClient()
    white.force_login(world.users["white"])
    page = white.get(board_url(world.game), secure=True).content.decode()
    assert "Declare a long think (over 40 days)" in page
    response = white.post(url, secure=True)
    assert response.status_code == 200, response.content
    assert response.json()["ply"] == 0 and world.fresh().long_think_white
    assert white.post(url, secure=True).status_code == 409  # once a move
    page = white.get(board_url(world.game), secure=True).content.decode()
    assert "Declare a long think" not in page
    assert "You declared a long think for this move." in page
