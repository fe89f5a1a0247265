"""Every object the API lists carries its ``id`` and ``url``; a game is named ``id`` (to post
its result) and ``number`` (in its group) wherever it appears."""

import pytest

from apps.results.services import enter_result
from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db


def test_tournaments_carry_id_slug_and_url(world, api):
    [item] = api().get("/api/tournaments/").json()["results"]
    assert item["id"] == world.tournament.pk
    assert item["slug"] == world.tournament.slug
    assert item["url"] == f"/api/tournaments/{world.tournament.slug}/"


def test_groups_carry_id_and_url(world, api):
    items = api().get(f"/api/groups/?stage={world.stage.pk}").json()["results"]
    assert [(g["id"], g["url"]) for g in items] == [
        (world.group.pk, f"/api/groups/{world.group.pk}/"),
        (world.other_group.pk, f"/api/groups/{world.other_group.pk}/"),
    ]


def test_a_groups_games_carry_id_number_and_url_to_post_a_result(world, api):
    games = api().get(f"/api/groups/{world.group.pk}/games/").json()["results"]
    assert [g["number"] for g in games] == sorted(g["number"] for g in games)
    first = games[0]
    assert {"id", "url", "number", "version"} <= set(first)
    assert first["url"] == f"/api/games/{first['id']}/"
    detail = api().get(first["url"]).json()
    assert (detail["id"], detail["number"], detail["url"]) == (
        first["id"],
        first["number"],
        first["url"],
    )
    td = api(world.users["td"])
    posted = td.post(
        f"/api/games/{first['id']}/result/",
        {"result": "1-0", "expected_version": first["version"]},
        format="json",
    )
    assert posted.status_code == 200


def test_my_games_carry_id_number_and_url(world, api):
    game = world.player_game
    enter_result(world.users["td"], game, "1-0", expected_version=game.version)
    me = api(world.users["player"]).get("/api/me/").json()
    [entry] = me["entries"]
    assert entry["tournament"] == {
        "id": world.tournament.pk,
        "url": f"/api/tournaments/{world.tournament.slug}/",
        "slug": world.tournament.slug,
        "name": world.tournament.name,
    }
    assert entry["stage"]["id"] == world.stage.pk and entry["stage"]["url"]
    assert entry["group"]["id"] == world.group.pk and entry["group"]["url"]
    mine = next(g for g in entry["games"] if g["id"] == game.pk)
    assert mine["number"] == game.number and mine["url"] == f"/api/games/{game.pk}/"
    organizes = api(world.users["organizer"]).get("/api/me/").json()["organizes"]
    assert organizes[0]["id"] == world.tournament.pk and organizes[0]["url"]
