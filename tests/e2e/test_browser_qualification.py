"""An organizer ends a played preliminary in a real browser: closes it, sets the qualification
rule, checks the qualifiers and the cut, adds a pre-qualified entrant, confirms, and draws and
publishes the semifinal, where a visitor then finds the pre-qualified entrant."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.results.simulate import simulate_results
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from tests.e2e.conftest import say_yes, submit_sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-e2e-qual-123"
STAGES = [
    {"kind": Stage.Kind.PRELIMINARY},
    {"kind": Stage.Kind.SEMIFINAL, "format": Stage.Format.ROUND_ROBIN, "min_group_size": 11},
    {"kind": Stage.Kind.FINAL, "format": Stage.Format.ROUND_ROBIN, "min_group_size": 6},
]
PREQUALIFIED = {
    "code": "CUP3-01",
    "reason": "finalist of the 3rd Cup",
    "name": "Prequalified, Anna",
    "nation": "ITA",
    "rating": "2450",
}


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("e2e-qual", "q@example.org", PASSWORD)


@pytest.fixture
def played(organizer) -> Stage:
    """A 300-entrant preliminary in three groups of 100, published and played to the end."""
    cup = create_tournament(organizer, name="Qual Cup", slug="qual-cup", stages=STAGES)
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(300, "e2e-qual")))
    close_registration(organizer, stage)
    start_draw(organizer, stage, "preliminary seed")
    publish_draw(organizer, stage)
    simulate_results(organizer, stage, share=1.0, withdrawals=0)
    return stage


def sign_in(page, url: str) -> None:
    """Open ``url``, which sends us to the login page, and sign in as the organizer."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    page.fill("#id_username", "e2e-qual")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)


def test_organizer_closes_the_preliminary_confirms_qualifiers_and_draws_the_semifinal(
    live_server, browser, played
):
    from playwright.sync_api import expect

    base = live_server.url
    context = browser.new_context()
    page = context.new_page()
    messages = page.locator(".messages")

    sign_in(page, f"{base}/t/qual-cup/s/1/manage/")
    closing = page.locator("#closing")
    expect(closing.get_by_role("heading", level=2)).to_contain_text("Play and closing")
    expect(closing.locator("#open-games")).to_have_text("0")
    closing.get_by_role("button", name="Close the stage").click()
    say_yes(page)
    expect(messages).to_contain_text("The stage is closed")
    expect(page.locator("#closing #groups-closed")).to_have_text("3")

    page.locator("#closing").get_by_role("link", name="Qualification").click()
    expect(page).to_have_url(re.compile(r"/t/qual-cup/s/1/qualification/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Qualification")
    expect(page.locator("#rule")).to_have_text("No qualification rule is set.")
    rule = page.locator("#rule-form")
    rule.locator("[name=rule]").select_option("top_per_group")
    rule.locator("[name=value]").fill("11")
    rule.locator("[name=relative]").check()
    rule.get_by_role("button", name="Save the rule").click()
    expect(messages).to_contain_text("The qualification rule is saved")
    expect(page.locator("#rule")).to_have_text("the top 11 % of each group (rounded half up)")
    expect(page.locator("#qualifier-count")).to_have_text("33")

    qualifiers = page.locator("#qualifiers tbody tr")
    expect(qualifiers).to_have_count(33)
    expect(qualifiers.first).to_contain_text("1st in group 1: top 11 (11 % of 100)")
    expect(qualifiers.nth(32)).to_contain_text("11th in group 3: top 11")
    cuts = page.locator("#cuts")
    for number in (1, 2, 3):
        expect(cuts.get_by_role("heading", name=f"Group {number}: 11 places")).to_be_visible()
    expect(cuts.locator("tbody tr").filter(has_text="outside the top 11").first).to_be_visible()
    expect(page.locator("#reserves tbody tr").first).to_contain_text("reserve 1")

    form = page.locator("#prequalify-form")
    for name, value in PREQUALIFIED.items():
        form.locator(f"[name={name}]").fill(value)
    form.get_by_role("button", name="Add").click()
    expect(messages).to_contain_text("Prequalified, Anna is pre-qualified")
    listed = page.locator("#prequalified li")
    expect(listed).to_have_count(1)
    expect(listed).to_contain_text("CUP3-01")
    expect(listed).to_contain_text("finalist of the 3rd Cup")
    expect(page.locator("#total")).to_have_text("34")

    page.locator("#confirm").get_by_role("button", name="Confirm the qualifiers").click()
    say_yes(page)
    expect(page).to_have_url(re.compile(r"/t/qual-cup/s/2/manage/$"))
    expect(messages).to_contain_text("the semifinal has 34 entrants and is ready to draw")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Semifinal")
    expect(page.locator("#registration")).to_contain_text("34 entrants registered")

    page.fill("#id_seed", "semifinal lotto 3 14 15")
    page.get_by_role("button", name="Start the draw").click()
    expect(page).to_have_url(re.compile(r"/t/qual-cup/s/2/draw/\d+/$"))
    expect(page.locator("progress")).to_have_attribute("value", "100")
    expect(page.locator("#draw-progress")).to_contain_text("3 of 3 groups")
    expect(page.locator("#review table.groups tbody tr")).to_have_count(3)
    page.get_by_role("button", name="Publish").click()
    say_yes(page)
    expect(messages).to_contain_text("The draw is published")
    context.close()

    visitor = browser.new_page()
    visitor.goto(f"{base}/t/qual-cup/s/2/")
    groups = visitor.locator("table.groups tbody tr")
    expect(groups).to_have_count(3)
    visitor.goto(f"{base}/t/qual-cup/")
    visitor.get_by_placeholder("Find a player: name or code").fill("CUP3-01")
    visitor.get_by_role("button", name="Find").click()
    card = visitor.locator("article.player").filter(has_text="CUP3-01")
    expect(card).to_have_count(1)
    expect(card).to_contain_text("Prequalified, Anna")
    expect(card).to_contain_text("Semifinal")
    # a round robin of 11 or 12: everyone else in the group is an opponent
    opponents = card.locator("tbody tr").count()
    assert opponents in (10, 11)
    visitor.close()
