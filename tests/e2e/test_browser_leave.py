"""A player takes leave on "My games" (docs/play-clock-ops.md §4): the form, the days used and
left, the leave listed with its Cancel button; then cancels it. Desktop and 360 px (nothing
wider than the screen). Screenshots for people to look at."""

from datetime import date

import pytest

from apps.play.models import Leave
from tests.e2e.conftest import shoot, sign_in
from tests.worlds.play import build_play_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-leave-123"
SHOT = "/tmp/closed-circle-leave-{page}-{width}.png"


def test_a_player_takes_and_cancels_leave_on_my_games(live_server, browser):
    from playwright.sync_api import expect

    world = build_play_world(None, password=PASSWORD)
    year = date.today().year + 1
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_in(page, live_server.url, "white", PASSWORD)
    page.goto(f"{live_server.url}/me/#leave")
    section = page.locator("section#leave")
    expect(section).to_be_visible()
    section.get_by_label("First day").fill(f"{year}-06-01")
    section.get_by_label("Last day (included)").fill(f"{year}-06-10")
    section.get_by_role("button", name="Take leave").click()
    expect(page.locator(".messages")).to_contain_text("your opponents are told")
    expect(page.locator("section#leave .leave-list li")).to_have_count(1)
    leave = Leave.objects.get(user=world.users["white"])
    assert (leave.starts_on, leave.ends_on) == (date(year, 6, 1), date(year, 6, 10))
    expect(page.locator("section#leave .leave-years")).to_contain_text("35")  # 45 - 10 left
    shoot(page, SHOT, "taken")

    page.locator("section#leave .leave-list").get_by_role("button", name="Cancel").click()
    expect(page.locator(".messages")).to_contain_text("is cancelled")
    expect(page.locator("section#leave .leave-list li")).to_have_count(0)
    leave.refresh_from_db()
    assert leave.cancelled_at is not None
