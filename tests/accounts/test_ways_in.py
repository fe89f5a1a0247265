"""Every e-mail that asks a player to act carries a way in: an entry no account holds gets
its own claim link (it makes the account, or signs one in, links the entry and leads back to
the page the e-mail is about; it expires; "not me" refuses it), a claimed entry a sign-in
link back to the page. A game's page tells a signed-out visitor how to act on it."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from apps.accounts.services import request_claim_links
from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.entrants.models import ClaimRefusal, Entrant
from apps.groups.models import Game
from apps.notifications.models import SentNotification
from apps.notifications.tasks import send_start_lists
from apps.results.models import ResultReport
from apps.results.reports import report_result
from apps.results.services import enter_result
from tests.worlds.published import make_user

CLAIM = re.compile(r"http://[^/]+(/accounts/claim/[^/\s]+/\?next=\S+)")
NOT_ME = re.compile(r"http://[^/]+(/accounts/claim/[^/\s]+/not-me/)")
SIGN_IN = re.compile(r"http://[^/]+(/accounts/login/\?next=\S+)")
ACCOUNT = {"username": "newcomer", "password1": "chess-by-mail-7", "password2": "chess-by-mail-7"}


def game_page(game: Game) -> str:
    stage = game.group.stage
    return reverse(
        "game", args=[stage.tournament.slug, stage.order, game.group.number, game.number]
    )


def _opponent(world, game) -> Entrant:
    return game.black if game.white_id == world.player_entrant.pk else game.white


@pytest.fixture
def opponent(world):
    """The player's opponent in their first game, with an account that claimed the entry."""
    user = make_user("opponent")
    Entrant.objects.filter(pk=_opponent(world, world.player_game).pk).update(user=user)
    return user


def _report(world, capture, game) -> ResultReport:
    mail.outbox.clear()
    won = "1-0" if game.white_id == world.player_entrant.pk else "0-1"
    with capture(execute=True):
        return report_result(world.users["player"], game, won)


def test_the_confirm_email_claims_the_entry_and_leads_to_the_confirm_button(
    world, client, django_capture_on_commit_callbacks
):
    game = world.player_game
    opponent = _opponent(world, game)
    report = _report(world, django_capture_on_commit_callbacks, game)
    [message] = mail.outbox
    assert message.to == [opponent.email]
    link = CLAIM.search(message.body).group(1)
    assert SIGN_IN.search(message.body) is None

    # Signed out, the link shows the entry and makes the account in one step...
    assert opponent.name in client.get(link).text
    answer = client.post(link, ACCOUNT)
    assert answer.status_code == 302
    assert answer["Location"] == game_page(game) + "#answer"  # ...and leads to the game
    newcomer = get_user_model().objects.get(username="newcomer")
    opponent.refresh_from_db()
    assert opponent.user == newcomer and newcomer.email == opponent.email
    page = client.get(answer["Location"]).text
    assert "Confirm the result" in page and "Dispute it" in page

    confirm = reverse(
        "game-report-confirm",
        args=[world.tournament.slug, world.stage.order, game.group.number, game.number, report.pk],
    )
    client.post(confirm)
    report.refresh_from_db()
    game.refresh_from_db()
    assert report.status == "confirmed" and game.result == report.result


def test_a_signed_in_player_claims_through_the_link_too(
    world, client, django_capture_on_commit_callbacks
):
    game = world.player_game
    opponent = _opponent(world, game)
    _report(world, django_capture_on_commit_callbacks, game)
    link = CLAIM.search(mail.outbox[0].body).group(1)
    someone = make_user("someone")
    client.force_login(someone)
    answer = client.post(link)
    assert answer.status_code == 302 and answer["Location"].startswith(game_page(game))
    opponent.refresh_from_db()
    assert opponent.user == someone


def test_a_claimed_entry_gets_a_sign_in_link_back_to_the_game(
    world, client, opponent, django_capture_on_commit_callbacks
):
    game = world.player_game
    _report(world, django_capture_on_commit_callbacks, game)
    [message] = mail.outbox
    assert CLAIM.search(message.body) is None
    sign_in = SIGN_IN.search(message.body).group(1)
    assert sign_in == "/accounts/login/?next=" + game_page(game).replace("/", "%2F") + "%23answer"
    client.force_login(opponent)
    # the login page's next: back to the game
    assert f'value="{game_page(game)}#answer"' in client.get(sign_in).text


def test_the_start_list_carries_a_claim_link_for_unclaimed_entries_only(
    world, django_capture_on_commit_callbacks
):
    SentNotification.objects.all().delete()
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        send_start_lists.delay(world.group.pk)
    by_address = {m.to[0]: m.body for m in mail.outbox}
    player = by_address.pop(world.player_entrant.email)
    assert CLAIM.search(player) is None and "/accounts/login/?next=%2Fme%2F" in player
    assert by_address and all(
        CLAIM.search(body) and NOT_ME.search(body) for body in by_address.values()
    )


def test_a_claim_link_expires(world, client, django_capture_on_commit_callbacks, monkeypatch):
    _report(world, django_capture_on_commit_callbacks, world.player_game)
    link = CLAIM.search(mail.outbox[0].body).group(1)
    later = time.time() + 15 * 24 * 3600  # CLAIM_LINK_DAYS is 14
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    answer = client.post(link, ACCOUNT)
    assert answer.status_code == 400 and "expired" in answer.text
    assert not get_user_model().objects.filter(username="newcomer").exists()


def test_not_me_refuses_the_link_and_stops_the_emails(
    world, client, django_capture_on_commit_callbacks
):
    game = world.player_game
    opponent = _opponent(world, game)
    report = _report(world, django_capture_on_commit_callbacks, game)
    body = mail.outbox[0].body
    claim, not_me = CLAIM.search(body).group(1), NOT_ME.search(body).group(1)

    asked = client.get(not_me)
    assert asked.status_code == 200 and "This is not me" in asked.text
    assert ClaimRefusal.objects.count() == 0  # a GET changes nothing
    done = client.post(not_me)
    assert done.status_code == 200 and "no more links or e-mails" in done.text
    [refusal] = ClaimRefusal.objects.all()
    assert refusal.entrant_id == opponent.pk and refusal.email == opponent.email.lower()
    [event] = AuditEvent.objects.filter(action=Action.ENTRANT_CLAIM_REFUSED)
    assert event.data["entrant"] == opponent.code and event.actor is None
    # The organizers' list of entrants marks the address.
    client.force_login(world.users["organizer"])
    entrants = reverse("stage-entrants", args=[world.tournament.slug, world.stage.order])
    listed = client.get(entrants, {"q": opponent.code}).text
    assert "address refused" in listed
    assert "address refused" not in client.get(entrants, {"q": world.player_entrant.code}).text
    client.logout()

    # The link works no more; no e-mail or claim link reaches that address for the entry.
    refused = client.post(claim, ACCOUNT)
    assert refused.status_code == 400 and "refused" in refused.text
    opponent.refresh_from_db()
    assert opponent.user is None
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(world.users["td"], game, report.result, expected_version=game.version)
        request_claim_links(opponent.email)
    assert [m.to for m in mail.outbox] == [[world.player_entrant.email]]

    # An organizer corrects the address: the refusal no longer stands for it.
    Entrant.objects.filter(pk=opponent.pk).update(email="right@players.test")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        request_claim_links("right@players.test")
    [message] = mail.outbox
    assert message.to == ["right@players.test"] and opponent.code in message.body


def test_a_claimed_entry_cannot_be_refused(world, client):
    from apps.entrants.claims import claim_token

    player = world.player_entrant
    answer = client.post(reverse("claim-refuse", args=[claim_token(player.pk, player.email)]))
    assert answer.status_code == 409 and "linked to an account already" in answer.text
    assert not ClaimRefusal.objects.exists()


# ---------------------------------------------------------------------------
# A game's page, signed out
# ---------------------------------------------------------------------------


def test_a_signed_out_visitor_is_told_how_to_act_on_an_open_game(world, client):
    game = world.player_game
    page = client.get(game_page(game)).text
    sign_in = f"{reverse('login')}?next={game_page(game).replace('/', '%2F')}"
    assert "Sign in to report, confirm or dispute this result" in page
    assert f'href="{sign_in}"' in page
    assert f'href="{reverse("claim-request")}"' in page
    # Following it, the player signs in and is back on the game with the report form.
    client.force_login(world.users["player"])
    back = client.get(game_page(game)).text
    assert "Report the result" in back and "Sign in to report" not in back


def test_a_signed_in_account_without_the_entry_is_told_to_claim_it(world, client):
    client.force_login(world.users["rival"])
    page = client.get(game_page(world.player_game)).text
    assert "Your entry is not linked to this account yet" in page
    assert f'href="{reverse("claim-request")}"' in page
    assert "Sign in to report" not in page


@pytest.mark.parametrize("role", ["td", "organizer"])
def test_the_td_and_organizers_are_not_asked_to_claim(world, client, role):
    client.force_login(world.users[role])
    page = client.get(game_page(world.player_game)).text
    assert "Your entry is not linked" not in page and "Sign in to report" not in page


def test_a_finished_game_offers_no_player_action(world, client):
    game = world.player_game
    enter_result(world.users["td"], game, "1/2-1/2", expected_version=game.version)
    page = client.get(game_page(game)).text
    assert "Sign in to report" not in page and "players-way-in" not in page
