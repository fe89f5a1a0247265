"""Settings that cannot be drawn, in a real browser (issue 27, item 2): closing registration
is refused with the sentence naming the nearest workable settings, and a failed draw's page
offers the settings, not a retry that cannot succeed (desktop and a 360 px phone)."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import import_entrants
from apps.office.draw import draw_settings
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import DrawJob, Stage
from apps.stages.services import create_tournament
from tests.e2e.conftest import DESKTOP, PHONE, submit_sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-e2e-123"
NEEDS = "10 games per player need groups of at least 69"
NEAREST = "Nearest workable: 8 games per player (1 group of 60); or 69 entrants (1 group of 69)"


@pytest.fixture
def stage(db):
    organizer = get_user_model().objects.create_user("e2e-org", "o@example.org", PASSWORD)
    cup = create_tournament(organizer, name="Check Cup", slug="check-cup", games_per_player=10)
    stage = cup.first_stage
    csv = entrants_csv(make_entrants(60, "check", multi_entry_share=0))
    import_entrants(organizer, stage, csv)
    return stage


def sign_in(page, url: str) -> None:
    page.goto(url)
    page.fill("#id_username", "e2e-org")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_closing_is_refused_and_a_failed_draw_offers_the_settings(
    live_server, browser, stage, viewport
):
    from playwright.sync_api import expect

    name = "phone" if viewport is PHONE else "desktop"
    page = browser.new_context(viewport=viewport).new_page()
    sign_in(page, f"{live_server.url}/t/check-cup/s/1/manage/")
    page.get_by_role("button", name="Close registration").click()
    refusal = page.locator(".messages")
    expect(refusal).to_contain_text(NEEDS)
    expect(refusal).to_contain_text(NEAREST)
    page.screenshot(path=f"/tmp/closed-circle-draw-check-refused-{name}.png", full_page=True)
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAFT

    # A stage closed before the check, whose draw failed for its settings.
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.REGISTRATION_CLOSED)
    stage.refresh_from_db()
    job = DrawJob.objects.create(
        stage=stage,
        seed="the seed",
        draw_settings=draw_settings(stage).as_dict(),
        status=DrawJob.Status.FAILED,
        failure=DrawJob.Failure.SETTINGS,
        error="No valid 10-game formula exists for a closed circle of 60 seats.",
    )
    page.goto(f"{live_server.url}/t/check-cup/s/1/draw/{job.pk}/")
    failed = page.locator("#draw-failed")
    expect(failed.locator("[data-role=infeasible]")).to_contain_text(NEEDS)
    expect(page.get_by_role("button", name="Retry with the same seed")).to_have_count(0)
    page.screenshot(path=f"/tmp/closed-circle-draw-check-failed-{name}.png", full_page=True)
    page.get_by_role("button", name="Reopen registration to change the settings").click()
    expect(page.locator(".messages")).to_contain_text("Registration is open again")
    expect(page).to_have_url(re.compile(r"/t/check-cup/s/1/manage/"))
