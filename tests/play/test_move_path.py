"""The move's hot path (docs/play.md "What a move costs"): the one statement that locks a
played game loads what the ORM would, the clock's inputs with it (PostgreSQL), and the light
API answer carries what the serializer would."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import connection, transaction

from apps.play.clocking import read_inputs
from apps.play.leave import take_leave
from apps.play.models import ConditionalLine, PlayedGame
from apps.play.services import locked_played, make_move
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks)


def test_the_locked_game_is_loaded_as_the_orm_loads_it_with_its_clock_inputs(world):
    white, black = world.users["white"], world.users["black"]
    take_leave(black, date(2027, 1, 10), date(2027, 1, 12), now=START)
    take_leave(white, date(2027, 2, 1), date(2027, 2, 3), now=START)
    make_move(actor=white, game_id=world.game.pk, move="e4", after_ply=0, now=START)
    expected = PlayedGame.objects.select_related(
        "stage__tournament", "game__group", "game__white", "game__black"
    ).get(pk=world.game.pk)
    ConditionalLine.objects.create(game=expected, side="white", after_ply=1, moves=["e7e5"])
    with transaction.atomic():
        played = locked_played(world.game.pk)
    for name in ("played", "stage", "tournament", "game", "group", "white", "black"):
        got, want = {
            "played": (played, expected),
            "stage": (played.stage, expected.stage),
            "tournament": (played.stage.tournament, expected.stage.tournament),
            "game": (played.game, expected.game),
            "group": (played.game.group, expected.game.group),
            "white": (played.game.white, expected.game.white),
            "black": (played.game.black, expected.game.black),
        }[name]
        fields = [f.attname for f in type(want)._meta.concrete_fields]
        assert [getattr(got, f) for f in fields] == [getattr(want, f) for f in fields], name
    inputs = played.__dict__.get("clock_inputs")
    if connection.vendor == "postgresql":
        assert inputs == read_inputs(expected)
        moves, leave, lines = inputs
        assert len(moves) == 1 and lines
        assert [(p.first_day, p.last_day) for p in leave[black.pk]] == [
            (date(2027, 1, 10), date(2027, 1, 12))
        ]
    else:
        assert inputs is None


def test_the_move_answer_is_the_moves_shape(world):
    from rest_framework.test import APIClient

    from apps.play.api import MoveResponseSerializer

    client = APIClient()
    client.force_authenticate(world.users["white"])
    response = client.post(
        f"/api/games/{world.game.pk}/moves/", {"move": "e4", "after_ply": 0}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == set(MoveResponseSerializer().fields)
    [move] = body["moves"]
    assert (move["ply"], move["san"], move["uci"], body["turn"]) == (1, "e4", "e2e4", "black")
    assert move["played_at"].endswith("Z")
    # A form-encoded move (strings) goes through the serializer and is as good.
    black = APIClient()
    black.force_authenticate(world.users["black"])
    response = black.post(
        f"/api/games/{world.game.pk}/moves/", {"move": "e5", "after_ply": "1"}, secure=True
    )
    assert response.status_code == 201, response.content
    assert PlayedGame.objects.get(pk=world.game.pk).ply == 2
