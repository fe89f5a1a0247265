"""The format lab in a real browser: from the stage's dashboard an organizer opens the lab,
compares two formats, sees the run finish, the table and the three charts (Chart.js, from
static/vendor), and applies one to the stage."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import import_entrants
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from tests.e2e.conftest import say_yes, submit_sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "lab-organizer-pw-23"
SHOT = "/tmp/closed-circle-lab.png"  # looked at by people, not compared


def test_an_organizer_compares_formats_and_applies_one(live_server, browser):
    from playwright.sync_api import expect

    boss = get_user_model().objects.create_user("labboss", "l@example.org", PASSWORD)
    cup = create_tournament(boss, name="Lab Cup", slug="lab-cup", games_per_player=10)
    stage = cup.stages.get(order=1)
    import_entrants(boss, stage, entrants_csv(make_entrants(40, "lab")))

    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    failed: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.on("pageerror", lambda error: failed.append(str(error)))
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "labboss")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)
    page.goto(f"{live_server.url}/t/lab-cup/s/1/manage/")
    page.get_by_role("link", name="Format lab: compare formats on these entrants").click()

    expect(page.locator("main")).to_contain_text("a spread of 85 rating points")
    page.fill("#c1-group_size", "20")
    page.fill("#c1-games_per_player", "4")
    page.select_option("#c2-format", "round_robin")
    page.fill("#c2-group_size", "10")
    page.fill("#lab-tournaments", "10")
    page.get_by_role("button", name="Start the run").click()

    expect(page).to_have_url(re.compile(r"/t/lab-cup/s/1/lab/\d+/$"))
    expect(page.locator("#lab-progress [data-role=status]")).to_have_text("Done")
    expect(page.locator(".page-head")).to_contain_text("players’ form ±85 points")
    expect(page.locator("table.lab-table")).to_contain_text("Mean rating difference")
    for chart in ("lab-chart-shares", "lab-chart-score", "lab-chart-top"):
        # The scripts are deferred: wait until Chart.js has drawn on the canvas.
        page.wait_for_function(
            f"!!(window.Chart && window.Chart.getChart(document.getElementById('{chart}')))"
        )
    page.screenshot(path=SHOT, full_page=True)

    # On a phone the candidates scroll sideways under the measures, which stay in view.
    page.set_viewport_size({"width": 360, "height": 800})
    wrap = page.locator("#lab-results .table-wrap")
    scrolled = wrap.evaluate("w => (w.scrollLeft = w.scrollWidth - w.clientWidth)")
    assert scrolled > 20
    measure = page.locator("table.lab-table tbody th").first.bounding_box()
    assert measure is not None and abs(measure["x"] - wrap.bounding_box()["x"]) < 3
    page.set_viewport_size({"width": 1280, "height": 900})

    page.locator("table.lab-table form").nth(1).get_by_role("button").click()
    say_yes(page)
    expect(page.locator(".messages")).to_contain_text("candidate 2")
    stage.refresh_from_db()
    assert (stage.format, stage.min_group_size) == (Stage.Format.ROUND_ROBIN, 10)
    assert failed == []
