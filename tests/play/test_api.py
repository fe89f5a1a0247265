"""The API of a game played here: GET the state, POST moves (201, 409 stale, 400 illegal),
draws, resignation, claims, conditional moves, the TD's days; visibility for the public."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest

from apps.groups.models import Game
from apps.play.models import PlayedGame
from tests.worlds.play import START, build_play_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db

NOW = START + timedelta(hours=1)


@pytest.fixture(autouse=True)
def frozen_now():
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        yield


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks, draw_earliest_move=1)


def url(world, what: str) -> str:
    return f"/api/games/{world.game.pk}/{what}/"


def move(world, who: str, san: str, after: int, **extra):
    return api_client(world.users[who]).post(
        url(world, "moves"), {"move": san, "after_ply": after, **extra}, format="json"
    )


def test_the_state_of_a_new_game(world):
    response = api_client(world.users["white"]).get(url(world, "play"))
    assert response.status_code == 200
    data = response.json()
    assert (data["ply"], data["turn"], data["you"], data["result"]) == (0, "white", "white", "")
    assert data["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert data["clocks"]["white"]["days_left"] == 50
    assert data["clocks"]["loses_at"] == "2027-02-09T10:00:00Z"
    assert data["draw_offer"] is None and data["can_claim"] == []


def test_moves_through_the_api(world):
    response = move(world, "white", "e2e4", 0)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["ply"], body["turn"], [m["san"] for m in body["moves"]]) == (1, "black", ["e4"])
    doubled = move(world, "white", "e2e4", 0)
    assert doubled.status_code == 409 and doubled.json()["code"] == "conflict"
    illegal = move(world, "black", "e4", 1)
    assert illegal.status_code == 400
    assert "e4 is not a legal move for Black" in illegal.json()["message"]
    not_yours = move(world, "white", "d4", 1)
    assert not_yours.status_code == 409
    stranger = move(world, "stranger", "e5", 1)
    assert stranger.status_code == 403
    missing = move(world, "black", "", 1)
    assert missing.status_code == 400
    data = api_client(world.users["black"]).get(url(world, "play")).json()
    assert [(m["ply"], m["san"], m["days_used"]) for m in data["moves"]] == [(1, "e4", 0)]
    assert data["moves"][0]["played_at"] == "2027-01-04T11:00:00Z"


def test_a_game_to_mate_through_the_api(world):
    for ply, san in enumerate(["f3", "e5", "g4", "Qh4#"]):
        assert move(world, ("white", "black")[ply % 2], san, ply).status_code == 201
    data = api_client(None).get(url(world, "play")).json()  # finished: public
    assert (data["result"], data["ended_by"], data["turn"]) == ("0-1", "checkmate", None)
    assert Game.objects.get(pk=world.game.pk).result == "0-1"


def test_draw_offer_decline_accept_and_resign(world):
    white, black = api_client(world.users["white"]), api_client(world.users["black"])
    assert white.post(url(world, "draw-offer")).status_code == 200
    assert white.post(url(world, "draw-accept")).status_code == 409
    data = black.post(url(world, "draw-decline")).json()
    assert data["draw_offer"] is None
    assert black.post(url(world, "draw-offer")).json()["draw_offer"] == {"side": "black", "ply": 0}
    data = white.post(url(world, "draw-accept")).json()
    assert (data["result"], data["ended_by"]) == ("1/2-1/2", "agreed_draw")
    assert black.post(url(world, "resign")).status_code == 409


def test_resign(world):
    data = api_client(world.users["black"]).post(url(world, "resign")).json()
    assert (data["result"], data["ended_by"]) == ("1-0", "resignation")


def test_claims(world):
    client = api_client(world.users["white"])
    assert client.post(url(world, "claim"), {"kind": "nonsense"}, format="json").status_code == 400
    refused = client.post(url(world, "claim"), {"kind": "fifty_moves"}, format="json")
    assert refused.status_code == 409
    to_td = client.post(
        url(world, "claim"), {"kind": "other", "reason": "my opponent is a bot"}, format="json"
    ).json()
    assert to_td == {"granted": False, "to_td": True, "result": ""}


def test_conditionals(world):
    move(world, "white", "e4", 0)
    white = api_client(world.users["white"])
    created = white.post(
        url(world, "conditionals"), {"after_ply": 1, "moves": ["e5", "Nf3"]}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["moves"] == ["e7e5", "g1f3"]
    assert [c["moves"] for c in white.get(url(world, "conditionals")).json()] == [["e7e5", "g1f3"]]
    assert api_client(world.users["black"]).get(url(world, "conditionals")).json() == []
    assert api_client(world.users["td"]).get(url(world, "conditionals")).status_code == 403
    answered = move(world, "black", "e5", 1).json()
    assert [m["san"] for m in answered["moves"]] == ["e5", "Nf3"]
    assert white.delete(url(world, "conditionals")).json() == {"cancelled": 0}


def test_the_td_adds_days(world):
    body = {"side": "black", "days": 7, "reason": "illness"}
    assert api_client(world.users["white"]).post(url(world, "add-days"), body).status_code == 403
    response = api_client(world.users["td"]).post(url(world, "add-days"), body, format="json")
    assert response.status_code == 200
    assert response.json()["clocks"]["black"]["days_left"] == 57
    bad = api_client(world.users["td"]).post(url(world, "add-days"), {**body, "days": 0})
    assert bad.status_code == 400


def test_a_game_not_played_here_is_404(world):
    other = Game.objects.filter(group=world.group).exclude(pk=world.game.pk).first()
    PlayedGame.objects.filter(pk=other.pk).delete()
    assert api_client(world.users["td"]).get(f"/api/games/{other.pk}/play/").status_code == 404


def test_visibility_finished_only(world):
    move(world, "white", "e4", 0)
    assert api_client(None).get(url(world, "play")).status_code == 403
    assert api_client(world.users["stranger"]).get(url(world, "play")).status_code == 403
    for who in ("white", "black", "td", "organizer", "staff"):
        assert api_client(world.users[who]).get(url(world, "play")).status_code == 200, who


def test_visibility_delayed_hides_the_last_moves(world):
    world.stage.game_visibility, world.stage.visibility_delay_moves = "delayed", 1
    world.stage.save()
    for ply, san in enumerate(["e4", "e5", "Nf3"]):
        move(world, ("white", "black")[ply % 2], san, ply)
    data = api_client(None).get(url(world, "play")).json()
    assert (data["ply"], data["hidden_plies"]) == (1, 2)
    assert [m["san"] for m in data["moves"]] == ["e4"]
    assert data["fen"].startswith("rnbqkbnr/pppppppp/8/8/4P3/")
    assert data["clocks"] is None
    assert api_client(world.users["black"]).get(url(world, "play")).json()["ply"] == 3


def test_visibility_players_of_the_group_only(world):
    world.stage.game_visibility = "players"
    world.stage.save()
    assert api_client(None).get(url(world, "play")).status_code == 403
    other = Game.objects.filter(group=world.group).exclude(pk=world.game.pk).first()
    # White of game 1 sits in the group: they see the group's other games too.
    assert api_client(world.users["white"]).get(f"/api/games/{other.pk}/play/").status_code == 200
    assert (
        api_client(world.users["stranger"]).get(f"/api/games/{other.pk}/play/").status_code == 403
    )
