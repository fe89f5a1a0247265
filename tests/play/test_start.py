"""Play begins when a stage played on this server is published (apps.play.services.start_play)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.groups.models import Game
from apps.play.models import PlayedGame
from apps.play.services import START_FEN, start_play
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks)


def test_publishing_starts_every_game_of_the_stage_at_the_start_position(world):
    games = Game.objects.filter(group__stage=world.stage).count()
    assert PlayedGame.objects.filter(stage=world.stage).count() == games == 24
    played = world.played
    assert (played.ply, played.fen, played.started_at) == (0, START_FEN, START)
    # 10 moves in 50 days, doubling after 20: White's first move is lost after 36 days.
    assert played.loses_at == START + timedelta(days=36)
    assert played.next_reminder_at == START + timedelta(days=14)
    event = AuditEvent.objects.get(action=Action.PLAY_STARTED)
    assert event.data["games"] == 24


def test_starting_again_starts_nothing(world):
    assert start_play(world.stage) == 0
    assert PlayedGame.objects.filter(stage=world.stage).count() == 24


def test_a_stage_not_played_here_starts_no_game(world):
    PlayedGame.objects.all().delete()
    world.stage.play_on_server = False
    assert start_play(world.stage) == 0
    assert not PlayedGame.objects.exists()


def test_games_with_a_result_do_not_start(world):
    PlayedGame.objects.all().delete()
    Game.objects.filter(pk=world.game.pk).update(result="1-0")
    assert start_play(world.stage, START) == 23
    assert not PlayedGame.objects.filter(pk=world.game.pk).exists()
