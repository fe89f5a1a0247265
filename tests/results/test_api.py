"""The results and standings API: reading, result entry with optimistic concurrency,
withdrawals, the group's TD; errors as {code, message, details}."""

import pytest

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.core.people import display_name
from apps.groups.models import Game
from apps.results.services import enter_result
from tests.worlds.results import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db


def result_url(game) -> str:
    return f"/api/games/{game.pk}/result/"


def test_only_the_groups_td_and_organizers_enter_results(games, td, organizer, stranger, other_td):
    game = games[0]
    body = {"result": "1-0", "expected_version": 0}
    for user in (None, stranger, other_td):
        response = api_client(user).post(result_url(game), body, format="json")
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
    assert Game.objects.get(pk=game.pk).result == ""
    response = api_client(td).post(result_url(game), body, format="json")
    assert response.status_code == 200
    data = response.json()
    assert (data["result"], data["version"]) == ("1-0", 1)
    assert data["history"][0]["actor"] == display_name(td) and data["history"][0]["new"] == "1-0"
    second = {"result": "0-1", "expected_version": 0}
    assert (
        api_client(organizer).post(result_url(games[1]), second, format="json").status_code == 200
    )


def test_a_stale_version_answers_409_and_changes_nothing(games, td, organizer):
    game = games[0]
    enter_result(organizer, game, "1-0", expected_version=0)
    response = api_client(td).post(
        result_url(game), {"result": "0-1", "expected_version": 0}, format="json"
    )
    assert response.status_code == 409
    error = response.json()
    assert error["code"] == "conflict" and "changed meanwhile" in error["message"]
    assert error["details"] == [{"game": game.pk, "version": 1, "result": "1-0"}]
    assert Game.objects.get(pk=game.pk).result == "1-0"


def test_a_correction_needs_a_reason(games, td):
    client = api_client(td)
    game = games[0]
    client.post(result_url(game), {"result": "1-0", "expected_version": 0}, format="json")
    refused = client.post(result_url(game), {"result": "0-1", "expected_version": 1}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_input"
    accepted = client.post(
        result_url(game),
        {"result": "0-1", "expected_version": 1, "reason": "wrong way round"},
        format="json",
    )
    assert accepted.status_code == 200
    history = client.get(f"/api/games/{game.pk}/").json()["history"]
    assert [h["action"] for h in history] == ["result.corrected", "result.entered"]
    assert history[0] | {"at": None} == {
        "at": None,
        "actor": display_name(td),
        "action": "result.corrected",
        "old": "1-0",
        "new": "0-1",
        "adjudicated": False,
        "reason": "wrong way round",
    }


def test_a_bad_body_is_a_400_with_the_fields(games, td):
    response = api_client(td).post(result_url(games[0]), {"result": "2-0"}, format="json")
    assert response.status_code == 400
    fields = {d["field"] for d in response.json()["details"]}
    assert fields == {"result", "expected_version"}


def test_the_game_is_public_with_its_version(games):
    data = api_client().get(f"/api/games/{games[0].pk}/").json()
    assert data["version"] == 0 and data["number"] == 1 and data["history"] == []
    assert set(data["white"]) == {"code", "name", "nation", "rating"}


def test_withdrawals_through_the_api(
    stage, games, td, stranger, django_capture_on_commit_callbacks
):
    code = games[0].white.code
    body = {"entrant": code, "reason": "ill"}
    address = f"/api/stages/{stage.pk}/withdrawals/"
    assert api_client(stranger).post(address, body, format="json").status_code == 403
    missing = api_client(td).post(address, {"entrant": "NOPE", "reason": "x"}, format="json")
    assert missing.status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client(td).post(address, body, format="json")
    assert response.status_code == 200
    data = response.json()
    assert data["entrant"]["code"] == code and len(data["games"]) == 10
    assert {g["result"] for g in data["games"] if g["white"] == code} == {"-+"}
    again = api_client(td).post(address, body, format="json")
    assert again.status_code == 409 and "withdrawn already" in again.json()["message"]
    standings = api_client().get(f"/api/groups/{games[0].group_id}/standings/").json()
    withdrawn = [r for r in standings["rows"] if r["entrant"]["code"] == code]
    assert withdrawn[0]["withdrawn"] and withdrawn[0]["points"] == 0


def test_standings_crosstable_and_ranking(
    stage, group, games, td, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(td, games[0], "1-0", expected_version=0)
        enter_result(td, games[1], "+-", expected_version=0)
    client = api_client()
    standings = client.get(f"/api/groups/{group.pk}/standings/").json()
    assert standings["keys"] == ["ts", "ts_cut1"] and standings["provisional"]
    assert standings["counts"]["finished"] == 2 and standings["counts"]["forfeits"] == 1
    top = standings["rows"][0]
    assert top["place"] == "1" and top["seat"] == 1 and top["points"] == 2
    assert set(top["figures"]) >= {"ts", "ts_cut1", "bh", "bh_c1", "bh_c2"}
    table = client.get(f"/api/groups/{group.pk}/crosstable/").json()
    seat1 = table["rows"][0]
    assert seat1["seat"] == 1 and len(seat1["cells"]) == 10 and seat1["remaining"] == 8
    assert [c["colour"] for c in seat1["cells"]] == ["white"] * 5 + ["black"] * 5
    assert seat1["cells"][0]["symbol"] == "1" and seat1["cells"][0]["latest"]
    ranking = client.get(f"/api/stages/{stage.pk}/ranking/").json()
    # Every group has its standings from the publication on: all 300 entrants are ranked.
    assert ranking["count"] == 300 and len(ranking["results"]) == 100
    assert ranking["results"][0]["entrant"]["code"] == top["entrant"]["code"]
    assert client.get(f"/api/stages/{stage.pk}/ranking/?page=4").status_code == 404


def test_unpublished_groups_are_not_found_for_the_public(stage, group):
    stage.status = stage.Status.DRAWN
    stage.save(update_fields=["status"])
    client = api_client()
    for address in (
        f"/api/groups/{group.pk}/standings/",
        f"/api/groups/{group.pk}/crosstable/",
        f"/api/stages/{stage.pk}/ranking/",
    ):
        response = client.get(address)
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_the_organizer_names_the_td(group, organizer, td, stranger):
    address = f"/api/groups/{group.pk}/td/"
    assert api_client(td).post(address, {"username": "someone"}, format="json").status_code == 403
    unknown = api_client(organizer).post(address, {"username": "nobody"}, format="json")
    assert unknown.status_code == 400 and "no user" in unknown.json()["message"]
    response = api_client(organizer).post(address, {"username": "someone"}, format="json")
    assert response.status_code == 200 and response.json()["td"]["id"] == stranger.pk
    assert (
        AuditEvent.objects.filter(action=Action.GROUP_TD_ASSIGNED, group_id=group.pk).count() == 1
    )
    cleared = api_client(organizer).post(address, {"username": ""}, format="json")
    assert cleared.json()["td"] is None
