"""The ways in, in a real browser: the opponent of a reported result follows the e-mail's
claim link, creates the account in one step and lands on the game's Confirm button; a
signed-out player on a game's page is told to sign in, signs in and is back on the game with
the report form. Screenshots of the signed-out game page are saved (looked at, not compared)."""

import re

import pytest
from django.core import mail

from apps.results.models import ResultReport
from apps.results.reports import report_result
from tests.e2e.conftest import CLAIM_LINK, DESKTOP, PHONE, submit_sign_in
from tests.worlds.published import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-player-123"
SHOT = "/tmp/closed-circle-game-signed-out-{width}.png"


@pytest.fixture
def world(transactional_db):
    """Built outside a test transaction: every action's side effects run on its commit."""
    return build_world(None, password=PASSWORD, slug="ways-cup")


def _game_path(game) -> str:
    stage = game.group.stage
    return f"/t/{stage.tournament.slug}/s/{stage.order}/g/{game.group.number}/games/{game.number}/"


def test_the_opponent_claims_through_the_confirm_email_and_confirms(live_server, browser, world):
    from playwright.sync_api import expect

    game = world.player_game
    won = "1-0" if game.white_id == world.player_entrant.pk else "0-1"
    opponent = game.black if game.white_id == world.player_entrant.pk else game.white
    mail.outbox.clear()
    report = report_result(world.users["player"], game, won)
    [message] = [m for m in mail.outbox if m.to == [opponent.email]]
    link = CLAIM_LINK.search(message.body).group(1)
    assert "?next=" in link

    page = browser.new_page(viewport=DESKTOP)
    page.goto(live_server.url + link)
    expect(page.get_by_role("heading", level=1)).to_have_text("Claim your entry")
    page.get_by_label("Username").fill("the-opponent")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name=re.compile("Create the account")).click()
    expect(page).to_have_url(re.compile(re.escape(_game_path(game)) + "#answer$"))
    page.get_by_role("button", name="Confirm the result").click()
    expect(page.locator(".messages")).to_contain_text("Confirmed")
    report.refresh_from_db()
    assert report.status == ResultReport.Status.CONFIRMED


def test_a_signed_out_player_is_led_to_sign_in_and_back(live_server, browser, world):
    from playwright.sync_api import expect

    game = world.player_game
    page = browser.new_page(viewport=DESKTOP)
    page.goto(live_server.url + _game_path(game))
    way_in = page.locator("#players")
    expect(way_in).to_contain_text("Are you one of the players?")
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        page.screenshot(path=SHOT.format(width=viewport["width"]), full_page=True)
    page.set_viewport_size(DESKTOP)
    way_in.get_by_role("link", name="Sign in to report, confirm or dispute this result").click()
    page.fill("#id_username", "player")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)  # a first sign-in is asked for a name: "Later" goes on
    expect(page).to_have_url(live_server.url + _game_path(game))
    expect(page.get_by_role("heading", name="Report the result")).to_be_visible()
    expect(page.locator("#players")).to_have_count(0)
