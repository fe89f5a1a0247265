"""The end of a stage through the API, as an organizer, a group's TD and the public use it:
the qualification list, its rule and changes, closing groups and the stage, adjudication,
and the confirmation that fills the next stage."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from apps.groups.models import Game
from apps.stages.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)

NEW_ENDPOINTS = {
    "/api/stages/{id}/qualification/": "get",
    "/api/stages/{id}/qualification/rule/": "post",
    "/api/stages/{id}/qualification/prequalified/": "post",
    "/api/stages/{id}/qualification/declined/": "post",
    "/api/stages/{id}/qualification/confirm/": "post",
    "/api/stages/{id}/close/": "post",
    "/api/stages/{id}/adjudication/": "post",
    "/api/groups/{id}/close/": "post",
    "/api/groups/{id}/reopen/": "post",
}


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def user(name: str):
    """A signed-in user who organizes nothing (no password: hashing one is slow)."""
    return get_user_model().objects.create_user(name, f"{name}@example.org")


def stage_url(stage: Stage, tail: str = "") -> str:
    return f"/api/stages/{stage.pk}/{tail}"


@pytest.fixture
def org(organizer) -> APIClient:
    return client_for(organizer)


def set_rule(org: APIClient, stage: Stage, **rule) -> dict:
    response = org.post(stage_url(stage, "qualification/rule/"), rule, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def by_group(decisions: list[dict]) -> dict[int, list[dict]]:
    groups: dict[int, list[dict]] = {}
    for d in decisions:
        groups.setdefault(d["group"], []).append(d)
    return groups


def reopen_one_game(stage: Stage, group_number: int) -> Game:
    """Take a game's result away, as if it were still being played."""
    game = Game.objects.filter(group__stage=stage, group__number=group_number).first()
    game.result = ""
    game.save(update_fields=["result"])
    return game


# ---------------------------------------------------------------------------
# Reading the list
# ---------------------------------------------------------------------------


def test_the_public_reads_a_provisional_list_with_reasons_cuts_and_reserves(played, org):
    semifinal = played.tournament.stages.get(order=2)
    body = set_rule(org, played, rule="top_per_group", value="7")
    assert body["rule"] == "the top 7 of each group"

    response = client_for().get(stage_url(played, "qualification/"))

    assert response.status_code == 200
    body = response.json()
    assert (body["stage"], body["next_stage"]) == (played.pk, semifinal.pk)
    assert body["rule"] == "the top 7 of each group"
    assert body["provisional"] is True and body["confirmed"] is False
    assert any("Close the stage first" in b for b in body["blockers"])
    assert body["lot_seed"] == "preliminary seed"  # no seed of its own: the draw's
    assert len(body["qualifiers"]) == 21
    qualifiers = by_group(body["qualifiers"])
    reserves = by_group(body["reserves"])
    assert sorted(qualifiers) == sorted(reserves) == [1, 2, 3]
    for number, decisions in qualifiers.items():
        assert len(decisions) == 7
        assert all(d["status"] == "qualified" and d["code"] and d["name"] for d in decisions)
        assert all(
            f"in group {number}" in d["reason"] and "top 7" in d["reason"] for d in decisions
        )
        assert all(d["figures"] for d in decisions)
        assert 1 <= len(reserves[number]) <= 5
        assert all(d["status"] == "reserve" for d in reserves[number])
        weakest_in = min(Decimal(d["points"]) for d in decisions)
        assert all(Decimal(d["points"]) <= weakest_in for d in reserves[number])
    assert sorted(c["group"] for c in body["cuts"]) == [1, 2, 3]
    for cut in body["cuts"]:
        assert cut["places"] == 7 and cut["entrants"]
        statuses = {e["status"] for e in cut["entrants"]}
        assert "qualified" in statuses and statuses - {"qualified"}  # last in, first out
        assert all(e["figures"] and e["points"] for e in cut["entrants"])
    assert body["prequalified"] == [] and body["declined"] == []


def test_an_unpublished_stage_has_no_list_for_the_public_but_its_organizer_sees_one(played, org):
    semifinal = played.tournament.stages.get(order=2)

    assert client_for().get(stage_url(semifinal, "qualification/")).status_code == 404
    response = org.get(stage_url(semifinal, "qualification/"))

    assert response.status_code == 200
    body = response.json()
    assert body["qualifiers"] == [] and body["cuts"] == []
    assert "Set the stage's qualification rule first." in body["blockers"]


# ---------------------------------------------------------------------------
# The rule and who may change anything
# ---------------------------------------------------------------------------


def test_a_rule_without_a_value_or_with_a_bad_one_is_refused_with_the_field_named(played, org):
    missing = org.post(
        stage_url(played, "qualification/rule/"), {"rule": "top_per_group"}, format="json"
    )
    unknown = org.post(
        stage_url(played, "qualification/rule/"), {"rule": "best", "value": 3}, format="json"
    )
    fractional = org.post(
        stage_url(played, "qualification/rule/"),
        {"rule": "top_per_group", "value": "7.5"},
        format="json",
    )

    assert missing.status_code == 400 and missing.json()["code"] == "invalid_input"
    assert [d["field"] for d in missing.json()["details"]] == ["value"]
    assert "Give the rule's value" in missing.json()["message"]
    assert unknown.status_code == 400
    assert [d["field"] for d in unknown.json()["details"]] == ["rule"]
    assert fractional.status_code == 400 and "whole" in fractional.json()["message"]
    played.refresh_from_db()
    assert played.qualify_rule == "" and played.qualify_value is None


def test_only_organizers_change_the_qualification_or_close_the_stage(played, org):
    set_rule(org, played, rule="top_per_group", value=7)
    stranger, anonymous = client_for(user("stranger")), client_for()
    writes = [
        ("qualification/rule/", {"rule": "threshold", "value": 1}),
        (
            "qualification/prequalified/",
            {"code": "X1", "reason": "r", "name": "X Y", "nation": "FRA"},
        ),
        ("qualification/declined/", {"code": "X1", "reason": "r"}),
        ("qualification/confirm/", {}),
        ("close/", {}),
        ("adjudication/", {}),
    ]

    for tail, data in writes:
        refused = stranger.post(stage_url(played, tail), data, format="json")
        assert refused.status_code == 403, tail
        assert refused.json()["code"] == "permission_denied"
        assert "organizers" in refused.json()["message"]
        assert anonymous.post(stage_url(played, tail), data, format="json").status_code in (
            401,
            403,
        )

    played.refresh_from_db()
    assert (played.qualify_rule, played.status) == ("top_per_group", Stage.Status.PUBLISHED)
    assert org.get(stage_url(played, "qualification/")).json()["prequalified"] == []


# ---------------------------------------------------------------------------
# Pre-qualified entrants and declines
# ---------------------------------------------------------------------------


def test_prequalified_entrants_are_added_with_their_reason_and_an_unknown_code_needs_details(
    played, org
):
    set_rule(org, played, rule="top_per_group", value=7)
    url = stage_url(played, "qualification/prequalified/")

    created = org.post(
        url,
        {
            "code": "CUP3-01",
            "reason": "finalist of the 3rd Cup",
            "name": "Anna Prequalified",
            "nation": "ita",
            "rating": 2450,
        },
        format="json",
    )
    unknown = org.post(url, {"code": "NOBODY-9", "reason": "a guess"}, format="json")
    again = org.post(url, {"code": "CUP3-01", "reason": "twice"}, format="json")
    no_reason = org.post(url, {"code": "CUP3-02"}, format="json")

    assert created.status_code == 201
    assert created.json() | {"created_at": None} == {
        "code": "CUP3-01",
        "name": "Anna Prequalified",
        "nation": "ITA",
        "reason": "finalist of the 3rd Cup",
        "created_at": None,
    }
    assert unknown.status_code == 400 and unknown.json()["code"] == "invalid_input"
    assert "No entrant has the code NOBODY-9" in unknown.json()["message"]
    assert "three-letter nation" in unknown.json()["message"]
    assert again.status_code == 409 and "already" in again.json()["message"]
    assert no_reason.status_code == 400
    assert [d["field"] for d in no_reason.json()["details"]] == ["reason"]
    body = org.get(stage_url(played, "qualification/")).json()
    assert [a["code"] for a in body["prequalified"]] == ["CUP3-01"]
    assert len(body["qualifiers"]) == 21  # pre-qualified entrants take no qualifier's place


def test_a_qualifier_who_declines_is_replaced_by_the_next_reserve_of_the_group(played, org):
    before = set_rule(org, played, rule="top_per_group", value=7)
    leader = next(d for d in before["qualifiers"] if d["group"] == 2)
    first_reserve = next(d for d in before["reserves"] if d["group"] == 2)
    url = stage_url(played, "qualification/declined/")

    declined = org.post(url, {"code": leader["code"], "reason": "no time"}, format="json")
    unknown = org.post(url, {"code": "NOBODY-9", "reason": "no time"}, format="json")
    twice = org.post(url, {"code": leader["code"], "reason": "still no time"}, format="json")
    no_reason = org.post(url, {"code": first_reserve["code"], "reason": ""}, format="json")

    assert declined.status_code == 201
    assert (declined.json()["code"], declined.json()["reason"]) == (leader["code"], "no time")
    assert unknown.status_code == 404 and "NOBODY-9" in unknown.json()["message"]
    assert twice.status_code == 409
    assert no_reason.status_code == 400
    after = org.get(stage_url(played, "qualification/")).json()
    group_2 = by_group(after["qualifiers"])[2]
    codes = [d["code"] for d in group_2]
    assert len(group_2) == 7 and leader["code"] not in codes and first_reserve["code"] in codes
    taken = next(d for d in group_2 if d["code"] == first_reserve["code"])
    assert "declined" in taken["reason"]
    assert first_reserve["code"] not in [d["code"] for d in after["reserves"]]
    assert [a["code"] for a in after["declined"]] == [leader["code"]]
    unchanged = {n: [d["code"] for d in ds] for n, ds in by_group(before["qualifiers"]).items()}
    now = {n: [d["code"] for d in ds] for n, ds in by_group(after["qualifiers"]).items()}
    assert (now[1], now[3]) == (unchanged[1], unchanged[3])


# ---------------------------------------------------------------------------
# Closing groups and the stage; adjudication
# ---------------------------------------------------------------------------


def test_the_stage_closes_only_once_the_adjudicated_games_are_in(played, org):
    open_game = reopen_one_game(played, 2)

    refused = org.post(stage_url(played, "close/"))

    assert refused.status_code == 409 and refused.json()["code"] == "wrong_status"
    assert refused.json()["details"] == [{"group": 2, "open_games": 1}]
    assert "2 (1 open)" in refused.json()["message"]
    played.refresh_from_db()
    assert played.status == Stage.Status.PUBLISHED
    assert not played.groups.filter(closed_at__isnull=False).exists()

    sent = org.post(stage_url(played, "adjudication/"))

    assert sent.status_code == 200 and sent.json() == {"games": 1}
    played.refresh_from_db()
    assert played.adjudication_requested_at is not None
    open_game.refresh_from_db()
    entered = org.post(
        f"/api/games/{open_game.pk}/result/",
        {"result": "1-0", "expected_version": open_game.version, "adjudicated": True},
        format="json",
    )
    assert entered.status_code == 200, entered.json()
    nothing_left = org.post(stage_url(played, "adjudication/"))
    assert nothing_left.status_code == 400

    closed = org.post(stage_url(played, "close/"))

    assert closed.status_code == 200
    assert (closed.json()["id"], closed.json()["status"]) == (played.pk, "closed")
    assert played.groups.filter(closed_at__isnull=True).count() == 0
    assert org.post(stage_url(played, "close/")).status_code == 409
    assert org.post(stage_url(played, "adjudication/")).status_code == 409
    body = client_for().get(stage_url(played, "qualification/")).json()
    assert body["provisional"] is False


def test_a_group_is_closed_by_its_own_td_and_reopened_by_an_organizer_with_a_reason(played, org):
    td, other = user("td-one"), user("td-two")
    one, two = played.groups.get(number=1), played.groups.get(number=2)
    for group, who in ((one, td), (two, other)):
        assigned = org.post(f"/api/groups/{group.pk}/td/", {"username": who.username})
        assert assigned.status_code == 200, assigned.json()
    td_client, other_client = client_for(td), client_for(other)

    foreign = other_client.post(f"/api/groups/{one.pk}/close/")
    anonymous = client_for().post(f"/api/groups/{one.pk}/close/")
    closed = td_client.post(f"/api/groups/{one.pk}/close/")

    assert foreign.status_code == 403 and foreign.json()["code"] == "permission_denied"
    assert anonymous.status_code in (401, 403)
    assert closed.status_code == 200
    assert closed.json()["id"] == one.pk and closed.json()["number"] == 1
    assert closed.json()["closed_at"]
    assert td_client.post(f"/api/groups/{one.pk}/close/").status_code == 409

    by_td = td_client.post(f"/api/groups/{one.pk}/reopen/", {"reason": "a correction"})
    no_reason = org.post(f"/api/groups/{one.pk}/reopen/", {}, format="json")
    blank = org.post(f"/api/groups/{one.pk}/reopen/", {"reason": "   "}, format="json")

    assert by_td.status_code == 403
    assert no_reason.status_code == 400
    assert [d["field"] for d in no_reason.json()["details"]] == ["reason"]
    assert blank.status_code == 400
    one.refresh_from_db()
    assert one.is_closed

    reopened = org.post(f"/api/groups/{one.pk}/reopen/", {"reason": "a correction arrived"})

    assert reopened.status_code == 200 and reopened.json()["closed_at"] is None
    one.refresh_from_db()
    assert not one.is_closed
    assert org.post(f"/api/groups/{one.pk}/reopen/", {"reason": "again"}).status_code == 409


def test_a_group_with_a_game_still_open_cannot_close_and_the_game_is_named(played, org):
    game = reopen_one_game(played, 3)
    group = played.groups.get(number=3)

    refused = org.post(f"/api/groups/{group.pk}/close/")

    assert refused.status_code == 409
    assert refused.json()["details"] == [{"game": game.pk, "number": game.number}]
    assert f"{game.number} (" in refused.json()["message"]
    group.refresh_from_db()
    assert not group.is_closed


# ---------------------------------------------------------------------------
# Confirming
# ---------------------------------------------------------------------------


def test_confirming_needs_a_closed_stage_and_fills_the_next_stage_once(played, org):
    semifinal = played.tournament.stages.get(order=2)
    set_rule(org, played, rule="top_per_group", value="11", relative=True)
    added = org.post(
        stage_url(played, "qualification/prequalified/"),
        {"code": "CUP3-01", "reason": "finalist", "name": "Anna Pre", "nation": "ITA"},
        format="json",
    )
    assert added.status_code == 201
    url = stage_url(played, "qualification/confirm/")

    early = org.post(url)

    assert early.status_code == 409 and early.json()["code"] == "wrong_status"
    assert "Close the stage first" in early.json()["message"]
    semifinal.refresh_from_db()
    assert semifinal.status == Stage.Status.DRAFT and not semifinal.entries.exists()

    assert org.post(stage_url(played, "close/")).status_code == 200
    confirmed = org.post(url)

    assert confirmed.status_code == 200
    body = confirmed.json()
    assert (body["id"], body["kind"], body["order"]) == (semifinal.pk, "semifinal", 2)
    assert body["status"] == "registration_closed"
    assert body["entrant_count"] == 34  # 11 % of each group of 100: 3 × 11, and Anna
    semifinal.refresh_from_db()
    assert semifinal.entrants_digest and len(semifinal.entrants_digest) == 64

    again = org.post(url)
    late_rule = org.post(
        stage_url(played, "qualification/rule/"),
        {"rule": "top_per_group", "value": 1},
        format="json",
    )
    late_entrant = org.post(
        stage_url(played, "qualification/prequalified/"),
        {"code": "CUP3-02", "reason": "late", "name": "Bo Late", "nation": "FRA"},
        format="json",
    )

    assert again.status_code == 409 and "confirmed" in again.json()["message"]
    assert late_rule.status_code == 409
    assert late_entrant.status_code == 409
    assert semifinal.entries.count() == 34
    body = client_for().get(stage_url(played, "qualification/")).json()
    assert body["confirmed"] is True and body["provisional"] is False


# ---------------------------------------------------------------------------
# The schema
# ---------------------------------------------------------------------------


def test_the_schema_still_generates_and_documents_the_new_endpoints(client):
    response = client.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    paths = response.json()["paths"]
    for path, method in NEW_ENDPOINTS.items():
        assert method in paths.get(path, {}), path
    confirm = paths["/api/stages/{id}/qualification/confirm/"]["post"]
    assert {"200", "403", "409"} <= set(confirm["responses"])
    close = paths["/api/stages/{id}/close/"]["post"]
    assert {"200", "403", "409"} <= set(close["responses"])
    rule = paths["/api/stages/{id}/qualification/rule/"]["post"]
    assert "requestBody" in rule and "400" in rule["responses"]


def test_the_reason_of_a_replacement_names_whom_it_replaces_as_the_organizer_knows_them(
    played, org
):
    before = set_rule(org, played, rule="top_per_group", value=7)
    leader = next(d for d in before["qualifiers"] if d["group"] == 1)
    first_reserve = next(d for d in before["reserves"] if d["group"] == 1)
    org.post(
        stage_url(played, "qualification/declined/"),
        {"code": leader["code"], "reason": "no time"},
        format="json",
    )

    after = org.get(stage_url(played, "qualification/")).json()

    taken = next(d for d in after["qualifiers"] if d["code"] == first_reserve["code"])
    assert leader["code"] in taken["reason"] or leader["name"] in taken["reason"], taken["reason"]
