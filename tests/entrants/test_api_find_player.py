"""Find a player, and no e-mail address in any public answer."""

import json

import pytest

from apps.entrants.models import Entrant
from apps.groups.models import Game, Seat
from tests.worlds.api import *  # noqa: F403 (the fixtures of this world)


def test_find_a_player_by_code_gives_group_seat_and_opponents(anon, published_stage):
    seat = Seat.objects.select_related("entrant", "group").filter(stage=published_stage).first()
    code = seat.entrant.code
    body = anon.get(f"/api/players/?tournament=test-cup&q={code.lower()}").json()
    assert body["count"] == 1
    (player,) = body["results"]
    assert (player["code"], player["name"]) == (code, seat.entrant.name)
    assert player["tournament"] == "test-cup"
    assert player["stage"]["id"] == published_stage.pk
    assert player["group"] == {
        "id": seat.group_id,
        "number": seat.group.number,
        "url": f"/api/groups/{seat.group_id}/",
    }
    assert player["seat"] == seat.number
    as_white = set(Game.objects.filter(white=seat.entrant).values_list("black__code", flat=True))
    as_black = set(Game.objects.filter(black=seat.entrant).values_list("white__code", flat=True))
    assert {o["code"] for o in player["opponents"] if o["colour"] == "white"} == as_white
    assert {o["code"] for o in player["opponents"] if o["colour"] == "black"} == as_black
    group_seats = dict(Seat.objects.filter(group=seat.group).values_list("entrant__code", "number"))
    assert all(group_seats[o["code"]] == o["seat"] for o in player["opponents"])


def test_find_a_player_by_part_of_a_name_costs_a_constant_number_of_queries(
    anon, published_stage, django_assert_max_num_queries
):
    with django_assert_max_num_queries(4):
        body = anon.get("/api/players/?q=ma&page_size=500").json()
    expected = Entrant.objects.filter(name__icontains="ma").count()
    assert body["count"] == expected > 1
    assert all("ma" in p["name"].lower() for p in body["results"])
    assert all(len(p["opponents"]) == 10 for p in body["results"])


def test_find_a_player_sees_only_published_stages(anon, org, drawn_stage):
    code = Seat.objects.filter(stage=drawn_stage).first().entrant.code
    assert anon.get(f"/api/players/?q={code}").json()["count"] == 0
    assert org.get(f"/api/players/?q={code}").json()["count"] == 0


def test_find_a_player_of_another_tournament_finds_nobody(anon, published_stage):
    code = Seat.objects.filter(stage=published_stage).first().entrant.code
    assert anon.get(f"/api/players/?tournament=other&q={code}").json()["count"] == 0


def test_find_a_player_needs_two_letters(anon, db):
    answer = anon.get("/api/players/?q=a")
    assert answer.status_code == 400
    assert answer.json()["details"][0]["field"] == "q"
    missing = anon.get("/api/players/")
    assert missing.status_code == 400
    assert missing.json()["details"][0] == {
        "field": "q",
        "message": "This field is required.",
        "code": "required",
    }


@pytest.mark.parametrize("who", ["anon", "joe"])
def test_no_public_answer_holds_an_email_address(request, who, published_stage):
    client = request.getfixturevalue(who)
    group = published_stage.groups.first()
    code = Seat.objects.filter(group=group).first().entrant.code
    paths = [
        "/api/tournaments/",
        "/api/tournaments/test-cup/",
        "/api/stages/",
        f"/api/stages/{published_stage.pk}/",
        f"/api/groups/?stage={published_stage.pk}",
        f"/api/groups/{group.pk}/",
        f"/api/groups/{group.pk}/games/?page_size=500",
        f"/api/players/?q={code}",
        "/api/players/?q=ma&page_size=500",
    ]
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200, path
        text = json.dumps(answer.json())
        assert "@" not in text, path
        # The tournament's public contact address is the one e-mail key a public answer has
        # (empty here); no entrant's or account's address ever is.
        assert "email" not in text.replace('"contact_email": ""', ""), path
