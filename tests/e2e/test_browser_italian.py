"""The site in Italian in a real browser: an Italian Chromium (locale it-IT) reads the home page,
a tournament, a stage, a group and its standings in Italian; the footer's switcher turns the
site to English (which then stays, although the browser asks for Italian) and back."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOT = "/tmp/closed-circle-italian-{page}.png"  # looked at by people, not compared


@pytest.fixture
def stage(db):
    """A published stage of 60 entrants in two groups of 30."""
    organizer = get_user_model().objects.create_user("it-org", "o@example.org", "unused")
    cup = create_tournament(
        organizer,
        name="Coppa Italia",
        slug="coppa-italia",
        games_per_player=6,
        stages=[{"min_group_size": 30}],
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(60, "it-e2e")))
    close_registration(organizer, stage)
    start_draw(organizer, stage, "estrazione del lotto")
    publish_draw(organizer, stage)
    return stage


def test_an_italian_browser_reads_the_site_in_italian_and_switches_to_english_and_back(
    live_server, browser, stage
):
    from playwright.sync_api import expect

    context = browser.new_context(locale="it-IT")
    page = context.new_page()
    html = page.locator("html")
    heading = page.get_by_role("heading", level=1)

    page.goto(f"{live_server.url}/")
    expect(html).to_have_attribute("lang", "it")
    expect(heading).to_have_text("Tornei")
    expect(page.locator("table")).to_contain_text("Pubblicata")

    page.get_by_role("link", name="Coppa Italia").click()
    expect(page.get_by_role("heading", name="Fasi")).to_be_visible()
    expect(page.locator("table.stages")).to_contain_text("Cerchio chiuso Silli")

    page.locator("table.stages").get_by_role("link", name="Preliminari").click()
    expect(heading).to_contain_text("Preliminari")
    expect(page.get_by_role("heading", name="Gironi")).to_be_visible()
    expect(page.locator("main")).to_contain_text("Tutti i 2 certificati sono validi")

    page.locator("table.groups").get_by_role("link", name="1", exact=True).click()
    group_url = page.url
    expect(heading).to_contain_text("Girone 1")
    expect(page.get_by_role("heading", name="Lista di partenza")).to_be_visible()
    expect(page.locator("table.startlist thead")).to_contain_text("Avversari")
    expect(page.locator("table.startlist .colour.white").first).to_have_text("B")
    expect(page.locator("table.startlist .colour.black").first).to_have_text("N")
    page.screenshot(path=SHOT.format(page="group"), full_page=True)

    page.get_by_role("navigation", name="Pagine del girone").get_by_role(
        "link", name="Classifica"
    ).click()
    expect(heading).to_contain_text("Classifica")
    expect(page.locator("table.standings thead")).to_contain_text("Posizione")

    page.goto(group_url)
    page.get_by_role("button", name="English").click()
    expect(page).to_have_url(group_url)
    expect(html).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Start list")).to_be_visible()
    expect(page.locator("table.startlist .colour.white").first).to_have_text("W")

    # The choice outlives the page although the browser still asks for Italian.
    page.get_by_role("link", name=re.compile("Closed Circle")).click()
    expect(heading).to_have_text("Tournaments")
    expect(page.get_by_role("button", name="English")).to_be_disabled()

    page.get_by_role("button", name="Italiano").click()
    expect(html).to_have_attribute("lang", "it")
    expect(heading).to_have_text("Tornei")
    expect(page.get_by_role("button", name="Italiano")).to_be_disabled()
    context.close()
