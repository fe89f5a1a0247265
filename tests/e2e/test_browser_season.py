"""An organizer runs a season's set-up in a real browser, from an empty site, without leaving
it: the first account is made with `createsuperuser` as the README says; it signs in, creates
a tournament with a preliminary, a semifinal and a final, imports 500 entrants, edits one,
removes one, adds one, closes registration, draws and publishes."""

import re

import pytest
from django.core.management import call_command

from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from tests.e2e.conftest import say_yes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "first-account-pw-17"
SHOT = "/tmp/closed-circle-season-{}.png"


def test_a_season_is_set_up_in_the_browser_from_an_empty_site(
    live_server, browser, tmp_path, monkeypatch
):
    from playwright.sync_api import expect

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", interactive=False, username="boss", email="b@example.org")
    entrants = make_entrants(500, "season-e2e")
    upload = tmp_path / "entrants.csv"
    upload.write_text(entrants_csv(entrants), encoding="utf-8")
    base = live_server.url

    page = browser.new_context().new_page()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    # The first sign-in of the account createsuperuser made asks for the name others see
    # (else "Organizer 1" everywhere), then goes on.
    expect(page.locator("#first-name")).to_be_visible()
    page.fill("#id_display_name", "Season Boss")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("main")).to_contain_text("No tournaments yet")
    expect(page.locator(".topbar .who")).to_have_text("Season Boss")

    # The tournament, with its three stages.
    page.get_by_role("link", name="New tournament").first.click()
    page.fill("#id_name", "Season Cup 2027")
    page.check("#id_add_semifinal")
    page.check("#id_add_final")
    page.get_by_role("button", name="Create the tournament").click()
    expect(page).to_have_url(re.compile(r"/t/season-cup-2027/$"))
    stages = page.locator("table.stages tbody tr")
    expect(stages).to_have_count(3)
    expect(stages.nth(2)).to_contain_text("nations may meet")
    page.screenshot(path=SHOT.format("tournament"), full_page=True)

    # Registration: import, then one entrant changed, one removed, one added.
    page.get_by_role("link", name="Manage").first.click()
    page.set_input_files("#id_file", str(upload))
    page.get_by_role("button", name="Preview the import").click()
    page.get_by_role("button", name="Confirm import of 500 entrants").click()
    expect(page.locator(".messages")).to_contain_text("500")

    page.get_by_role("link", name="See and edit the entrants").click()
    first = entrants[0]
    page.get_by_role("row").filter(has_text=first.code).get_by_role("link", name="Change").click()
    page.fill("#id_rating", "2345")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("row").filter(has_text=first.code)).to_contain_text("2345")

    second = entrants[1]
    row = page.get_by_role("row").filter(has_text=second.code)
    row.get_by_role("button", name="Remove").click()
    say_yes(page)
    expect(page.get_by_role("row").filter(has_text=second.code)).to_have_count(0)

    page.fill("#add_name", "Newcomer, Nina")
    page.fill("#add_nation", "XYZ")
    page.get_by_role("button", name="Add the entrant").click()
    expect(page.locator("main")).to_contain_text("not a FIDE federation code")
    page.fill("#add_nation", "ITA")
    page.get_by_role("button", name="Add the entrant").click()
    page.fill("#entrants-q", "Newcomer")
    page.get_by_role("button", name="Find").click()
    expect(page.get_by_role("row").filter(has_text="Newcomer, Nina")).to_have_count(1)

    # Close, draw, publish.
    page.get_by_role("link", name="Back to the dashboard").click()
    expect(page.locator("#registration")).to_contain_text("500 entrants")
    page.get_by_role("button", name="Close registration").click()
    expect(page.locator(".messages")).to_contain_text(re.compile(r"SHA-256\): [0-9a-f]{64}"))
    page.fill("#id_seed", "Lotto 2027 3 14 15")
    page.get_by_role("button", name="Start the draw").click()
    expect(page.locator("#draw-progress")).to_contain_text("Done")
    expect(page.locator("#review table.groups tbody tr")).to_have_count(5)
    page.get_by_role("button", name="Publish").click()
    say_yes(page)
    expect(page.locator(".messages")).to_contain_text("The draw is published")
    page.screenshot(path=SHOT.format("published"), full_page=True)

    public = browser.new_context().new_page()
    public.goto(f"{base}/t/season-cup-2027/s/1/")
    expect(public.locator("table.groups tbody tr")).to_have_count(5)
