"""An organizer invites a person by e-mail as co-organizer or as TD of a group; the link
creates their account (or takes a signed-in one) and grants the role, once."""

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from apps.accounts.links import invitation_token
from apps.accounts.models import Invitation
from apps.accounts.services import accept_invitation, invite
from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent
from apps.core.permissions import can_enter_results, is_organizer
from tests.worlds.published import make_user

LINK = re.compile(r"http://[^/]+(/accounts/invitation/[^/\s]+/)")


def _link(message) -> str:
    return LINK.search(message.body).group(1)


def _invite(world, capture, **how):
    with capture(execute=True):
        return invite(world.users["organizer"], world.tournament, **how)


def test_a_co_organizer_joins_through_the_emailed_link(
    world, client, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    _invite(world, django_capture_on_commit_callbacks, email="ann@people.test", role="organizer")
    [message] = mail.outbox
    assert message.to == ["ann@people.test"]
    assert message.subject == "Invitation: co-organizer of the tournament, Accounts Cup"
    link = _link(message)

    page = client.get(link)
    assert page.status_code == 200
    assert "You are invited as co-organizer of the tournament of Accounts Cup" in page.text
    answer = client.post(
        link, {"username": "ann", "password1": "a-long-pass-99", "password2": "a-long-pass-99"}
    )
    assert answer.status_code == 302 and answer["Location"] == "/me/"
    ann = get_user_model().objects.get(username="ann")
    assert ann.email == "ann@people.test" and ann.check_password("a-long-pass-99")
    assert is_organizer(ann, world.tournament)
    assert client.get("/me/").wsgi_request.user == ann  # signed in
    assert AuditEvent.objects.filter(action=Action.INVITATION_ACCEPTED, actor=ann).count() == 1

    again = client.post(link)  # signed in as ann: accepting again changes nothing
    assert again.status_code == 302
    assert AuditEvent.objects.filter(action=Action.INVITATION_ACCEPTED).count() == 1


def test_a_td_invitation_makes_the_signed_in_user_the_groups_td(
    world, client, django_capture_on_commit_callbacks
):
    newcomer = make_user("newtd")
    invitation = _invite(
        world,
        django_capture_on_commit_callbacks,
        email="x@people.test",
        role="td",
        stage=world.stage,
        group_number=2,
    )
    client.force_login(newcomer)
    assert client.post(_link(mail.outbox[-1])).status_code == 302
    world.other_group.refresh_from_db()
    assert world.other_group.td == newcomer
    assert can_enter_results(newcomer, world.other_group)
    assert not can_enter_results(newcomer, world.group)
    event = AuditEvent.objects.get(action=Action.INVITATION_ACCEPTED)
    assert event.group_id == world.other_group.pk and event.data["old_td"] == "td2"

    other = make_user("latecomer")
    with pytest.raises(ActionError, match="accepted already, by another account"):
        accept_invitation(other, invitation_token(invitation.pk))


def test_invitations_are_for_organizers_and_name_a_real_group(world):
    with pytest.raises(ActionError, match="Only the organizers"):
        invite(world.users["td"], world.tournament, email="a@people.test", role="organizer")
    org = world.users["organizer"]
    with pytest.raises(ActionError, match="has no group 9"):
        invite(
            org,
            world.tournament,
            email="a@people.test",
            role="td",
            stage=world.stage,
            group_number=9,
        )
    with pytest.raises(ActionError, match="not an e-mail address"):
        invite(org, world.tournament, email="nobody", role="organizer")
    with pytest.raises(ActionError, match="not a role"):
        invite(org, world.tournament, email="a@people.test", role="king")
    assert Invitation.objects.count() == 0


def test_a_forged_or_expired_link_grants_nothing(world, client, monkeypatch):
    invitation = invite(
        world.users["organizer"], world.tournament, email="a@people.test", role="organizer"
    )
    token = invitation_token(invitation.pk)
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert client.get(f"/accounts/invitation/{forged}/").status_code == 400

    later = time.time() + 15 * 24 * 3600
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    page = client.get(f"/accounts/invitation/{token}/")
    assert page.status_code == 400 and "This link has expired" in page.text
    user = make_user("slow")
    with pytest.raises(ActionError, match="expired"):
        accept_invitation(user, token)
    assert not is_organizer(user, world.tournament)


def test_the_api_invites_lists_and_accepts(world, client, django_capture_on_commit_callbacks):
    client.force_login(world.users["organizer"])
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            f"/api/tournaments/{world.tournament.slug}/invitations/",
            {"email": "bob@people.test", "role": "td", "stage": world.stage.pk, "group": 1},
            content_type="application/json",
        )
    assert answer.status_code == 201, answer.json()
    assert answer.json()["role"] == "td" and answer.json()["group"] == 1
    listed = client.get(f"/api/tournaments/{world.tournament.slug}/invitations/").json()
    assert [i["email"] for i in listed] == ["bob@people.test"]

    token = _link(mail.outbox[-1]).split("/")[-2]
    bob = make_user("bob")
    client.force_login(bob)
    accepted = client.post(
        "/api/invitations/accept/", {"token": token}, content_type="application/json"
    )
    assert accepted.status_code == 200 and accepted.json()["accepted_by"] == "bob"
    world.group.refresh_from_db()
    assert world.group.td == bob


def test_the_organizer_page_sends_an_invitation(world, client, django_capture_on_commit_callbacks):
    client.force_login(world.users["organizer"])
    url = f"/t/{world.tournament.slug}/invitations/"
    assert client.get(url).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(url, {"email": "cy@people.test", "role": "organizer"})
    assert answer.status_code == 302
    assert mail.outbox[-1].to == ["cy@people.test"]
    assert "cy@people.test" in client.get(url).text
