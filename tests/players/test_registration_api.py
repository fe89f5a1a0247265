"""The API of registration by players: register (201, 422 with every broken rule, 409),
the requests (organizers: all; a player: their own), withdraw (the player only), decide
many at once (organizers; all or none)."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.entrants.models import Entrant
from apps.players.models import Registration

pytestmark = pytest.mark.django_db


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def registrations_url(stage) -> str:
    return reverse("api-stage-registrations", args=[stage.pk])


def test_a_player_registers_and_sees_only_their_own(open_stage, make_player, details):
    anna, bruno = make_player("anna"), make_player("bruno")
    answer = client_for(anna).post(registrations_url(open_stage), details(1), format="json")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert (body["status"], body["position"], body["reserve_place"]) == ("pending", 1, None)
    assert [c["rule"] for c in body["checks"]] == ["federation", "rating_min", "rating_max"]
    assert all(c["passed"] for c in body["checks"])
    client_for(bruno).post(registrations_url(open_stage), details(2), format="json")
    mine = client_for(anna).get(registrations_url(open_stage)).json()["results"]
    assert [r["name"] for r in mine] == ["Player 1"]


def test_the_organizer_sees_every_request(open_stage, organizer, make_player, details):
    for n in (1, 2):
        client_for(make_player(f"p{n}")).post(
            registrations_url(open_stage), details(n), format="json"
        )
    rows = client_for(organizer).get(registrations_url(open_stage)).json()["results"]
    assert [r["position"] for r in rows] == [1, 2]


def test_an_ineligible_request_is_422_with_the_rules(open_stage, make_player, details):
    answer = client_for(make_player("c")).post(
        registrations_url(open_stage), details(1, rating=1500, federation="GER"), format="json"
    )
    assert answer.status_code == 422
    body = answer.json()
    assert body["code"] == "not_eligible"
    assert [d["rule"] for d in body["details"]] == ["federation", "rating_min"]
    assert "1900" in body["message"]
    assert not Registration.objects.exists()


def test_bad_input_is_400_and_the_public_is_403(open_stage, make_player, details):
    answer = client_for(make_player("d")).post(
        registrations_url(open_stage), {"name": "X"}, format="json"
    )
    assert answer.status_code == 400
    assert client_for().post(registrations_url(open_stage), details(1)).status_code == 403
    assert client_for().get(registrations_url(open_stage)).status_code == 403


def test_a_second_request_is_409(open_stage, make_player, details):
    player = make_player("e")
    client_for(player).post(registrations_url(open_stage), details(1), format="json")
    answer = client_for(player).post(registrations_url(open_stage), details(1), format="json")
    assert answer.status_code == 409


def test_withdraw_is_the_players_own(open_stage, make_player, details):
    player = make_player("f")
    made = client_for(player).post(registrations_url(open_stage), details(1), format="json")
    url = reverse("api-registration-withdraw", args=[made.json()["id"]])
    assert client_for(make_player("g")).post(url).status_code == 404
    answer = client_for(player).post(url)
    assert answer.status_code == 200 and answer.json()["status"] == "withdrawn"
    assert client_for(player).post(url).status_code == 409


def test_the_organizer_approves_and_rejects_in_bulk(open_stage, organizer, make_player, details):
    ids = [
        client_for(make_player(f"p{n}"))
        .post(registrations_url(open_stage), details(n), format="json")
        .json()["id"]
        for n in range(1, 6)
    ]
    decide = reverse("api-stage-registrations-decide", args=[open_stage.pk])
    org = client_for(organizer)
    assert (
        org.post(decide, {"ids": ids[:2], "decision": "reject"}, format="json").status_code == 400
    )
    answer = org.post(decide, {"ids": ids[:2], "decision": "approve"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert [r["status"] for r in answer.json()] == ["approved", "approved"]
    assert all(r["entrant"] for r in answer.json())
    answer = org.post(
        decide, {"ids": [ids[2], ids[3]], "decision": "reject", "reason": "Full"}, format="json"
    )
    assert [r["status"] for r in answer.json()] == ["rejected", "rejected"]
    # A place freed: the last reserve moved up.
    assert Registration.objects.get(pk=ids[4]).status == "pending"
    assert Entrant.objects.count() == 2
    assert (
        client_for(make_player("h"))
        .post(decide, {"ids": ids, "decision": "approve"}, format="json")
        .status_code
        == 403
    )
