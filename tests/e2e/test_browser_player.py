"""A player claims their entry through the e-mailed link in a real browser, creates an
account, signs in again later and reads "my games" with their opponents' contacts; a TD
signed in cannot open another group's result entry. Screenshots of "my games" are saved."""

import re

import pytest
from django.core import mail

from apps.groups.models import Seat
from tests.e2e.conftest import submit_sign_in
from tests.worlds.published import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-player-123"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SHOT = "/tmp/closed-circle-my-games-{width}.png"  # looked at by people, not compared
LINK = re.compile(r"https?://[^/\s]+(/accounts/claim/[^/\s]+/)")


@pytest.fixture
def world(transactional_db):
    """Built outside a test transaction: every action's side effects run on its commit."""
    return build_world(None, password=PASSWORD, slug="player-cup")


def sign_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    submit_sign_in(page)


def test_a_player_claims_an_entry_by_email_and_sees_opponents_contacts(live_server, browser, world):
    from playwright.sync_api import expect

    entry = Seat.objects.get(group=world.group, number=2).entrant
    opponents = world.opponents_emails(entry)
    base = live_server.url
    page = browser.new_page(viewport=DESKTOP)

    # From the sign-in page to the claim form; the links go to the entry's address.
    page.goto(f"{base}/accounts/login/")
    page.get_by_role("link", name="Get a link to claim your entries").click()
    mail.outbox.clear()
    page.get_by_label("E-mail address").fill(entry.email)
    page.get_by_role("button", name="Send the links").click()
    expect(page.locator(".message")).to_contain_text("a link for each is on its way")
    [message] = [m for m in mail.outbox if m.to == [entry.email]]
    link = LINK.search(message.body).group(1)

    # The link: create the account, which claims the entry and signs in.
    page.goto(base + link)
    expect(page.get_by_role("heading", level=1)).to_have_text("Claim your entry")
    expect(page.locator("main")).to_contain_text(entry.name)
    page.get_by_label("Username").fill("new-player")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name=re.compile("Create the account")).click()
    expect(page).to_have_url(f"{base}/me/")
    expect(page.locator(".messages")).to_contain_text("is linked to your account")

    # Later: sign out, sign in, open "My games" from the header.
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, base, "new-player", PASSWORD)
    page.get_by_role("link", name="My games").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("My games")
    card = page.locator("article.my-entry")
    expect(card).to_have_count(1)
    expect(card.locator("h2")).to_contain_text(entry.name)
    expect(card).to_contain_text("in play")
    contacts = card.locator("td.contact a")
    expect(contacts).to_have_count(4)
    assert {contacts.nth(i).inner_text() for i in range(4)} == opponents
    expect(card).to_contain_text("td1@people.test")
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        page.screenshot(path=SHOT.format(width=viewport["width"]), full_page=True)

    # The public start list shows no address; this player's view of it shows theirs.
    page.goto(f"{base}/t/player-cup/s/1/g/1/")
    expect(page.locator("a.contact")).to_have_count(5)  # the four opponents and their own
    page.get_by_role("button", name="Sign out").click()
    page.goto(f"{base}/t/player-cup/s/1/g/1/")
    expect(page.locator("a.contact")).to_have_count(0)
    page.close()


def test_a_td_cannot_open_another_groups_result_entry(live_server, browser, world):
    from playwright.sync_api import expect

    base = live_server.url
    page = browser.new_page(viewport=DESKTOP)
    sign_in(page, base, "td1", PASSWORD)
    answer = page.goto(f"{base}/t/player-cup/s/1/g/2/results/")
    assert answer.status == 403
    expect(page.get_by_role("heading", level=1)).to_have_text("Not allowed")
    expect(page.locator("main")).to_contain_text(
        "Only the TD of group 2 and the organizers may enter its results."
    )
    answer = page.goto(f"{base}/t/player-cup/s/1/g/2/results/game/1/")
    assert answer.status == 403

    answer = page.goto(f"{base}/t/player-cup/s/1/g/1/results/")
    assert answer.status == 200
    expect(page.get_by_role("heading", level=1)).to_contain_text("Enter results")
    page.close()
