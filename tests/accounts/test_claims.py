"""A player's account is linked to their entries: by an organizer (API, admin action) or by
the player through a signed, expiring link e-mailed to the entry's address (idempotent)."""

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from apps.accounts.links import claim_token
from apps.accounts.services import claim_entry, link_entrants_by_email
from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant
from apps.groups.models import Seat
from tests.worlds.published import make_user

LINK = re.compile(r"http://[^/]+(/accounts/claim/[^/\s]+/)")


@pytest.fixture
def unclaimed(world):
    """The entry in seat 2 of group 1: no account yet."""
    return Seat.objects.get(group=world.group, number=2).entrant


def test_a_player_asks_for_a_link_and_claims_the_entry_with_a_new_account(
    world, unclaimed, client, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/accounts/claim/", {"email": unclaimed.email.upper()})
    assert answer.status_code == 200 and "a link for each is on its way" in answer.text
    [message] = mail.outbox
    assert message.to == [unclaimed.email]
    assert unclaimed.code in message.body
    link = LINK.search(message.body).group(1)

    page = client.get(link)
    assert unclaimed.name in page.text
    # The new account's name starts as the entry's: a claimer never shows as "Account 3".
    assert page.context["form"]["display_name"].value() == unclaimed.name
    answer = client.post(
        link,
        {"username": "claimer", "password1": "chess-by-mail-7", "password2": "chess-by-mail-7"},
    )
    assert answer.status_code == 302 and answer["Location"] == "/me/"
    claimer = get_user_model().objects.get(username="claimer")
    unclaimed.refresh_from_db()
    assert unclaimed.user == claimer and claimer.email == unclaimed.email
    assert client.post(link).status_code == 302  # again, signed in: nothing changes
    assert AuditEvent.objects.filter(action=Action.ENTRANT_CLAIMED).count() == 1


def test_asking_for_links_says_the_same_for_an_unknown_address(
    client, world, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/accounts/claim/", {"email": "stranger@people.test"})
    assert answer.status_code == 200 and "a link for each is on its way" in answer.text
    assert mail.outbox == []
    api = client.post(
        "/api/auth/claim-links/", {"email": "stranger@people.test"}, content_type="application/json"
    )
    assert api.status_code == 202 and mail.outbox == []


def test_a_claimed_entry_cannot_be_taken_by_another_account(world, unclaimed):
    token = claim_token(unclaimed.pk, unclaimed.email)
    first, second = make_user("first"), make_user("second")
    claim_entry(first, token)
    assert claim_entry(first, token).user == first  # idempotent
    with pytest.raises(ActionError, match="belongs to another account"):
        claim_entry(second, token)
    player = world.player_entrant
    with pytest.raises(ActionError, match="belongs to another account"):
        claim_entry(second, claim_token(player.pk, player.email))


def test_a_link_stops_working_when_the_address_changes_or_it_expires(world, unclaimed, monkeypatch):
    token = claim_token(unclaimed.pk, unclaimed.email)
    user = make_user("late")
    Entrant.objects.filter(pk=unclaimed.pk).update(email="new@people.test")
    with pytest.raises(ActionError, match="no longer matches"):
        claim_entry(user, token)

    token = claim_token(unclaimed.pk, "new@people.test")
    later = time.time() + 15 * 24 * 3600
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    with pytest.raises(ActionError, match="expired"):
        claim_entry(user, token)
    unclaimed.refresh_from_db()
    assert unclaimed.user is None


def test_claiming_through_the_api_needs_a_signed_in_user(world, unclaimed, client):
    token = claim_token(unclaimed.pk, unclaimed.email)
    body = {"token": token}
    assert client.post("/api/me/claims/", body, content_type="application/json").status_code == 403
    client.force_login(make_user("apiuser"))
    answer = client.post("/api/me/claims/", body, content_type="application/json")
    assert answer.status_code == 200
    assert answer.json()["entrant"]["code"] == unclaimed.code


def test_an_organizer_links_and_unlinks_an_entry_through_the_api(world, unclaimed, client):
    url = f"/api/tournaments/{world.tournament.slug}/entrant-links/"
    someone = make_user("someone")
    client.force_login(world.users["td"])
    body = {"entrant": unclaimed.code, "username": "someone"}
    assert client.post(url, body, content_type="application/json").status_code == 403

    client.force_login(world.users["organizer"])
    answer = client.post(url, body, content_type="application/json")
    assert answer.json() == {"entrant": unclaimed.code, "username": "someone"}
    unclaimed.refresh_from_db()
    assert unclaimed.user == someone
    answer = client.post(
        url, {"entrant": unclaimed.code, "username": ""}, content_type="application/json"
    )
    unclaimed.refresh_from_db()
    assert answer.status_code == 200 and unclaimed.user is None
    missing = client.post(
        url, {"entrant": unclaimed.code, "username": "ghost"}, content_type="application/json"
    )
    assert missing.status_code == 400 and missing.json()["details"][0]["field"] == "username"


def test_organizers_send_claim_links_one_email_per_address(
    world, client, django_capture_on_commit_callbacks
):
    seats = Seat.objects.filter(group=world.group, number__in=[2, 3]).select_related("entrant")
    a, b = (s.entrant for s in seats)
    Entrant.objects.filter(pk=b.pk).update(email=a.email)  # one person, two entries
    client.force_login(world.users["organizer"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            f"/api/tournaments/{world.tournament.slug}/claim-links/",
            {"entrants": [a.code, b.code, world.player_entrant.code]},
            content_type="application/json",
        )
    assert answer.status_code == 202 and answer.json() == {"sent": 2}  # the player's is linked
    [message] = mail.outbox
    assert message.to == [a.email] and len(LINK.findall(message.body)) == 2


def test_the_admin_links_entries_to_the_accounts_with_their_address(world, unclaimed, client):
    owner = make_user("owner")
    owner.email = unclaimed.email.upper()
    owner.save()
    admin = get_user_model().objects.create_superuser("admin", "admin@people.test")
    client.force_login(admin)
    answer = client.post(
        "/admin/entrants/entrant/",
        {"action": "link_by_email", "_selected_action": [unclaimed.pk, world.player_entrant.pk]},
    )
    assert answer.status_code == 302
    unclaimed.refresh_from_db()
    assert unclaimed.user == owner
    world.player_entrant.refresh_from_db()
    assert world.player_entrant.user == world.users["player"]  # already linked: left alone
    assert link_entrants_by_email(admin, [unclaimed]) == 0
