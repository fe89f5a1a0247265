"""Reading tournaments, stages, groups, games and entrants: fields, pagination, filters, and a
constant number of queries per request."""

from collections import Counter

import pytest

from apps.groups.models import Game
from apps.stages.services import create_tournament
from tests.worlds.api import *  # noqa: F403 (the fixtures of this world)


def test_tournaments_are_paginated_and_searchable_by_name(anon, organizer):
    for i in range(7):
        create_tournament(organizer, name=f"Spring Cup {i}", slug=f"spring-{i}")
    create_tournament(organizer, name="Autumn Open", slug="autumn")
    first = anon.get("/api/tournaments/?page_size=3").json()
    assert first["count"] == 8 and len(first["results"]) == 3 and first["next"]
    last = anon.get("/api/tournaments/?page_size=3&page=3").json()
    assert len(last["results"]) == 2 and last["next"] is None
    found = anon.get("/api/tournaments/?search=autumn").json()
    assert [t["slug"] for t in found["results"]] == ["autumn"]


def test_a_tournament_shows_its_format_and_stages(anon, published_stage):
    body = anon.get("/api/tournaments/test-cup/").json()
    assert body["name"] == "Test Cup"
    assert body["games_per_player"] == 10
    assert body["points"] == {"win": 1.0, "draw": 0.5, "loss": 0.0}
    assert body["tiebreak"] == "torino" and body["ranking"] == "group"
    assert body["stages"] == [
        {
            "id": published_stage.pk,
            "url": f"/api/stages/{published_stage.pk}/",
            "kind": "preliminary",
            "order": 1,
            "format": "silli",
            "status": "published",
        }
    ]


def test_a_missing_tournament_is_a_404_that_names_it(anon, db):
    answer = anon.get("/api/tournaments/nope/")
    assert answer.status_code == 404
    assert answer.json() == {
        "code": "not_found",
        "message": "There is no tournament 'nope'.",
        "details": [],
    }


def test_a_stage_shows_its_settings_digests_and_counts(anon, published_stage):
    body = anon.get(f"/api/stages/{published_stage.pk}/").json()
    assert body["tournament"] == "test-cup"
    assert (body["kind"], body["order"], body["format"]) == ("preliminary", 1, "silli")
    assert body["min_group_size"] == 100
    assert body["separate_nations"] is True and body["avoid_rematches"] is True
    assert body["seed"] == "fixture"
    assert body["entrants_digest"] == published_stage.entrants_digest
    assert body["draw_digest"] == published_stage.draw_digest
    assert body["entrant_count"] == 300 and body["group_count"] == 3
    assert body["registration_closed_at"] and body["drawn_at"] and body["published_at"]
    assert body["groups_url"] == f"/api/groups/?stage={published_stage.pk}"


def test_stages_filter_by_tournament_and_status(org, organizer, published_stage):
    create_tournament(organizer, name="Other", slug="other", stages=[{}, {"kind": "final"}])
    assert org.get("/api/stages/").json()["count"] == 3
    assert org.get("/api/stages/?tournament=other").json()["count"] == 2
    published = org.get("/api/stages/?status=published").json()["results"]
    assert [s["id"] for s in published] == [published_stage.pk]
    assert org.get("/api/stages/?tournament=other&status=draft&kind=final").json()["count"] == 1


def test_a_bad_filter_value_is_a_400_naming_the_field(anon, db):
    answer = anon.get("/api/stages/?status=bogus")
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_input"
    assert answer.json()["details"][0]["field"] == "status"
    assert "status:" in answer.json()["message"]


def test_groups_of_a_stage_with_their_certificate(anon, published_stage):
    body = anon.get(f"/api/groups/?stage={published_stage.pk}").json()
    assert body["count"] == 3
    group = body["results"][0]
    assert group["number"] == 1 and group["size"] == 100 and group["stage"] == published_stage.pk
    assert len(group["formula"]) == 5 and group["formula_text"].count(".") == 4
    assert group["principles_hold"] is True and group["conflicts"] == []
    assert sum(count for _, count in group["nation_mix"]) == 100
    assert group["td"] is None
    assert group["games_url"] == f"/api/groups/{group['id']}/games/"


def test_a_group_lists_every_seat_with_opponents_and_colours_from_its_games(anon, published_stage):
    group = published_stage.groups.get(number=2)
    body = anon.get(f"/api/groups/{group.pk}/").json()
    seats = body["seats"]
    assert [s["seat"] for s in seats] == list(range(1, 101))
    assert set(seats[0]["entrant"]) == {"code", "name", "nation", "rating"}
    by_code = {s["entrant"]["code"]: s for s in seats}
    games = Game.objects.filter(group=group).values_list("number", "white__code", "black__code")
    assert len(games) == 500
    for number, white, black in games:
        assert _opponent(by_code[white], number)[:2] == ("white", black)
        assert _opponent(by_code[black], number)[:2] == ("black", white)
    for seat in seats:
        assert len(seat["opponents"]) == 10
        assert Counter(o["colour"] for o in seat["opponents"]) == {"white": 5, "black": 5}
        for o in seat["opponents"]:
            assert by_code[o["code"]]["seat"] == o["seat"]
            assert o["nation"] != seat["entrant"]["nation"]


def _opponent(seat: dict, game: int) -> tuple[str, str, int]:
    """(colour of the seat's player, opponent's code, opponent's seat) in game ``game``."""
    (o,) = [o for o in seat["opponents"] if o["game"] == game]
    return o["colour"], o["code"], o["seat"]


def test_a_group_costs_the_same_few_queries_whatever_its_size(
    anon, published_stage, django_assert_max_num_queries
):
    group = published_stage.groups.first()
    with django_assert_max_num_queries(4):
        assert anon.get(f"/api/groups/{group.pk}/").status_code == 200


def test_group_games_are_paginated_with_results(anon, published_stage):
    group = published_stage.groups.first()
    Game.objects.filter(group=group, number=1).update(result="1-0")
    page = anon.get(f"/api/groups/{group.pk}/games/?page_size=200").json()
    assert page["count"] == 500 and len(page["results"]) == 200
    first = page["results"][0]
    assert first["number"] == 1 and first["result"] == "1-0"
    assert set(first["white"]) == {"code", "name", "nation", "rating"}
    last = anon.get(f"/api/groups/{group.pk}/games/?page_size=200&page=3").json()
    assert [g["number"] for g in last["results"]] == list(range(401, 501))


def test_page_size_is_capped_at_500(org, draft_stage):
    body = org.get(f"/api/stages/{draft_stage.pk}/entrants/?page_size=100000").json()
    assert body["count"] == 300 and len(body["results"]) == 300
    assert len(org.get(f"/api/stages/{draft_stage.pk}/entrants/").json()["results"]) == 50


def test_a_page_past_the_end_is_a_404_that_says_so(anon, published_stage):
    group = published_stage.groups.first()
    answer = anon.get(f"/api/groups/{group.pk}/games/?page=99")
    assert answer.status_code == 404
    assert answer.json()["message"].startswith("There is no page 99")


def test_entrants_filter_by_name_code_and_nation(org, draft_stage):
    base = f"/api/stages/{draft_stage.pk}/entrants/"
    one = org.get(f"{base}?search=e000017").json()["results"]
    assert [e["code"] for e in one] == ["E000017"]
    assert set(one[0]) == {"code", "name", "nation", "rating", "person", "email"} | {
        "source",
        "reason",
    }
    surname = one[0]["name"].split(",")[0]
    by_name = org.get(f"{base}?search={surname}&page_size=500").json()["results"]
    assert "E000017" in [e["code"] for e in by_name]
    assert all(surname.lower() in e["name"].lower() for e in by_name)
    nation = one[0]["nation"]
    of_nation = org.get(f"{base}?nation={nation.lower()}&page_size=500").json()
    expected = draft_stage.entries.filter(entrant__nation=nation).count()
    assert of_nation["count"] == expected
    assert {e["nation"] for e in of_nation["results"]} == {nation}


@pytest.mark.parametrize("path", ["/api/tournaments/", "/api/stages/", "/api/groups/"])
def test_lists_cost_a_constant_number_of_queries(
    org, published_stage, path, django_assert_max_num_queries
):
    with django_assert_max_num_queries(3):
        assert org.get(f"{path}?page_size=500").status_code == 200
