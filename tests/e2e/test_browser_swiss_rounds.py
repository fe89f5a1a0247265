"""A Swiss stage played two rounds through its round pages in a real browser: the group's TD
opens the rounds from the group page, enters every board's result of round 1 (the last one
pairs round 2 by itself), corrects one with a reason on the game's form and comes back to the
round, plays round 2, and reads the standings after each round. The organizer sees
"Pair round 3" on the current round. Screenshots at desktop and phone width are saved."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group, SwissBye
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from tests.e2e.conftest import DESKTOP, play_round, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-swiss-rounds-1"
SHOTS = "/tmp/closed-circle-swiss-{page}-{width}.png"  # looked at by people, not compared


@pytest.fixture
def group(db):
    users = get_user_model().objects
    organizer = users.create_user("swiss-org", "o@example.org", PASSWORD)
    td = users.create_user("swiss-td", "td@example.org", PASSWORD)
    cup = create_tournament(
        organizer,
        name="Swiss Rounds Cup",
        slug="swiss-rounds",
        stages=[
            {
                "kind": Stage.Kind.FINAL,
                "format": Stage.Format.SWISS,
                "swiss_rounds": 3,
                "swiss_round_days": 30,
            }
        ],
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(9, "swiss-e2e")))
    close_registration(organizer, stage)
    start_draw(organizer, stage, "swiss e2e seed")
    publish_draw(organizer, stage)
    group = Group.objects.get(stage=stage, number=1)
    group.td = td
    group.save(update_fields=["td"])
    return group


def sign_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_two_rounds_played_through_the_round_pages(live_server, browser, group):
    from playwright.sync_api import expect

    base = live_server.url
    stage = group.stage
    page = browser.new_page(viewport=DESKTOP)
    sign_in(page, base, "swiss-td")
    page.goto(f"{base}{group.get_absolute_url()}")
    facts = page.locator("dl.facts")
    expect(facts).to_contain_text("Rounds")
    expect(facts).not_to_contain_text("Games per player")
    shoot(page, SHOTS, "group")
    page.locator("nav.group-nav").get_by_role("link", name="Rounds").click()
    expect(page).to_have_url(re.compile(r"/rounds/1/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Round 1 of 3")
    expect(page.locator("nav.round-nav a")).to_have_text(["1"])
    expect(page.locator(".round-deadline")).to_contain_text("Round 1 ends on")
    bye = SwissBye.objects.get(group=group, round=1).entrant
    expect(page.locator("#bye")).to_contain_text(bye.name)
    shoot(page, SHOTS, "round-1-open")

    play_round(page, 1)
    # the last result paired round 2: the navigation has it
    expect(page.locator("nav.round-nav a")).to_have_text(["1", "2"])
    expect(page.locator("nav.round-nav .later")).to_have_text(["3"])
    expect(page.locator("#standings")).to_contain_text("Standings after round 1")

    # a correction: on the game's own form, with a reason, and back to the round
    first = Game.objects.get(group=group, round=1, number=1)
    page.locator("tr#board-1").get_by_role("link", name="Correct").click()
    expect(page.get_by_role("heading", level=2).first).to_contain_text("Correct the result")
    page.get_by_label("Result").select_option(label="0-1")
    page.get_by_label("Reason").fill("scoresheet misread")
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/rounds/1/#board-1$"))
    expect(page.locator("tr#board-1 .round-result")).to_have_text("0-1")
    first.refresh_from_db()
    assert first.result == "0-1" and first.version == 2
    after_one = page.locator("table.round-standings tbody tr").all_inner_texts()

    page.locator("nav.round-nav").get_by_role("link", name="2", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Round 2 of 3")
    # the points each player had before round 2 are shown
    expect(page.locator("tr#board-1 .points-before").first).not_to_have_text("(0)")
    play_round(page, 2)
    expect(page.locator("#standings")).to_contain_text("Standings after round 2")
    after_two = page.locator("table.round-standings tbody tr").all_inner_texts()
    assert after_two != after_one
    shoot(page, SHOTS, "round-2-played")

    # round 1's page still shows the standings as they were after round 1
    page.goto(f"{base}{group.get_absolute_url()}rounds/1/")
    assert page.locator("table.round-standings tbody tr").all_inner_texts() == after_one
    expect(page.locator(".hint").last).to_contain_text("later rounds are not counted")

    # the group's results page lists the rounds, not a closed-circle grid
    page.locator("nav.group-nav").get_by_role("link", name="Enter results").click()
    expect(page.locator("table.round-counts tbody tr")).to_have_count(3)
    expect(page.locator("#results-grid")).to_have_count(0)
    shoot(page, SHOTS, "results")

    assert Game.objects.filter(group=group, round__in=[1, 2], result="").count() == 0
    assert Game.objects.filter(group=group, round=3).count() == 4  # paired by itself
    page.close()

    # the organizer: round 3 is current; its results are not in, so no pairing yet
    page = browser.new_page(viewport=DESKTOP)
    sign_in(page, base, "swiss-org")
    page.goto(f"{base}{group.get_absolute_url()}rounds/")
    expect(page).to_have_url(re.compile(r"/rounds/3/$"))
    expect(page.locator("#next-round")).to_contain_text("Every round is paired")
    page.goto(f"{base}/t/{stage.tournament.slug}/s/{stage.order}/")
    expect(page.locator("main")).not_to_contain_text("principle")
    expect(page.locator("main")).not_to_contain_text("Games per player")
    shoot(page, SHOTS, "stage")
    page.close()
