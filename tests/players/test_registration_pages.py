"""The pages of registration by players: the stage's "Register" link and form (a refusal
shown with the rule it breaks), "My registrations" with the state and Withdraw, and the
organizers' requests page with the checks, approving or rejecting the chosen ones."""

import pytest
from django.urls import reverse

from apps.players.models import Registration
from apps.players.registrations import register

pytestmark = pytest.mark.django_db


def form_data(details, n, **changes):
    data = details(n, **changes)
    return {k: "" if v is None else v for k, v in data.items()}


def test_the_tournament_page_links_to_the_registration(client, open_stage, make_player):
    client.force_login(make_player("anna"))
    page = client.get(reverse("tournament", args=["reg-cup"])).content.decode()
    assert reverse("stage-register", args=["reg-cup", 1]) in page


def test_a_player_registers_on_the_page_and_sees_the_state(
    client, open_stage, make_player, details
):
    client.force_login(make_player("anna"))
    url = reverse("stage-register", args=["reg-cup", 1])
    page = client.get(url).content.decode()
    assert "Rating from 1900 to 2099 on ICCF list 2026/4." in page
    answer = client.post(url, form_data(details, 1), follow=True)
    page = answer.content.decode()
    assert "The organizers will approve or reject it" in page
    assert "waiting for approval" in page and "Withdraw" in page


def test_a_refusal_names_the_rule_and_keeps_the_form(client, open_stage, make_player, details):
    client.force_login(make_player("anna"))
    url = reverse("stage-register", args=["reg-cup", 1])
    answer = client.post(url, form_data(details, 1, rating=1700))
    assert answer.status_code == 422
    assert (
        "Players rated below 1900 on ICCF list 2026/4 may not register" in answer.content.decode()
    )
    assert not Registration.objects.exists()


def test_a_stage_closed_to_players_has_no_registration_page(client, organizer, make_player):
    from apps.stages.services import create_tournament

    create_tournament(organizer, name="Closed Cup", slug="closed-cup")
    client.force_login(make_player("anna"))
    assert client.get(reverse("stage-register", args=["closed-cup", 1])).status_code == 404


def test_the_player_withdraws_on_my_registrations(client, open_stage, make_player, details):
    player = make_player("anna")
    made = register(open_stage, actor=player, **details(1))
    client.force_login(player)
    answer = client.post(reverse("registration-withdraw", args=[made.pk]), follow=True)
    assert "Your registration is withdrawn." in answer.content.decode()
    assert Registration.objects.get(pk=made.pk).status == "withdrawn"


def test_the_organizer_sees_the_checks_and_decides_many(
    client, open_stage, organizer, make_player, details
):
    made = [register(open_stage, actor=make_player(f"p{n}"), **details(n)) for n in range(1, 4)]
    client.force_login(organizer)
    url = reverse("stage-registrations", args=["reg-cup", 1])
    page = client.get(url).content.decode()
    assert "Federation ITA is among those allowed (ITA, SMR)." in page
    assert "Rating 2000 is at least 1900 on ICCF list 2026/4." in page
    answer = client.post(url, {"ids": [made[0].pk, made[1].pk], "decision": "approve"}, follow=True)
    assert "2 requests approved" in answer.content.decode()
    answer = client.post(url, {"ids": [made[2].pk], "decision": "reject"}, follow=True)
    assert "Give the reason for the rejection" in answer.content.decode()
    assert Registration.objects.get(pk=made[2].pk).status == "pending"
    client.post(url, {"ids": [made[2].pk], "decision": "reject", "reason": "Late"})
    assert Registration.objects.get(pk=made[2].pk).status == "rejected"
