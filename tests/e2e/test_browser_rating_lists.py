"""Rating lists in a real browser: the organizer imports a list (a bad file first: every bad
row listed, nothing written), gives a stage its ratings from it, and, once the stage is
played, everyone sees the rating report and the norm figures under the crosstable — at
desktop and at 360 px, nothing wider than the screen."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Group
from apps.office.services import publish_draw, start_draw
from apps.ratinglists.models import RatingList
from apps.stages.services import create_tournament, update_stage
from tests.e2e.conftest import shoot, sign_in
from tests.ratinglists.conftest import example_entrants_csv, example_list_csv, set_example_results

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-e2e-123"
SHOTS = "/tmp/closed-circle-rating-lists-{page}-{width}.png"


@pytest.fixture
def stage(db):
    organizer = get_user_model().objects.create_user("e2e-org", "o@example.org", PASSWORD)
    organizer.user_permissions.add(
        Permission.objects.get(codename="add_tournament", content_type__app_label="stages")
    )
    cup = create_tournament(organizer, name="Norm Cup", slug="norm-cup")
    stage = update_stage(
        organizer,
        cup.first_stage,
        kind="final",
        format="round_robin",
        min_group_size=10,
        separate_nations=False,
    )
    import_entrants(organizer, stage, example_entrants_csv())
    return stage


def upload(page, name: str, text: str) -> None:
    page.fill("#id_name", name)
    page.fill("#id_list_date", "2026-10-01")
    page.set_input_files(
        "#id_file", files=[{"name": "list.csv", "mimeType": "text/csv", "buffer": text.encode()}]
    )
    with page.expect_navigation():
        page.get_by_role("button", name="Import").click()


def test_import_apply_and_see_the_report_and_norms(live_server, browser, stage):
    from playwright.sync_api import expect

    base = live_server.url
    page = browser.new_page()
    sign_in(page, base, "e2e-org", PASSWORD)
    page.goto(f"{base}/rating-lists/")
    bad = example_list_csv().replace("P4,Dvořák,ITA", "P4,Dvořák,XYZ")
    upload(page, "ICCF list 2026/4", bad)
    expect(page.locator(".bad-rows")).to_contain_text("Nothing was imported")
    expect(page.locator(".bad-rows")).to_contain_text("XYZ")
    assert not RatingList.objects.exists()
    shoot(page, SHOTS, "refused")

    upload(page, "ICCF list 2026/4", example_list_csv())
    expect(page.locator("h1")).to_contain_text("ICCF list 2026/4")
    expect(page.locator("table")).to_contain_text("Fontaine")
    shoot(page, SHOTS, "list")

    page.goto(f"{base}/t/norm-cup/s/1/manage/")
    with page.expect_navigation():
        page.get_by_role("link", name="Rating list").click()
    with page.expect_navigation():
        page.get_by_role("button", name="Apply the list").click()
    words = "Ratings from ICCF list 2026/4 (2026-10-01)"
    expect(page.locator("#ratings-from")).to_have_text(words)
    shoot(page, SHOTS, "stage-list")

    organizer = get_user_model().objects.get(username="e2e-org")
    close_registration(organizer, stage)
    start_draw(organizer, stage, "e2e seed")
    publish_draw(organizer, stage)
    set_example_results(Group.objects.get(stage=stage, number=1))

    visitor = browser.new_page()
    visitor.goto(f"{base}/t/norm-cup/s/1/")
    expect(visitor.locator("#ratings-from")).to_contain_text(words)
    visitor.goto(f"{base}/t/norm-cup/s/1/g/1/crosstable/")
    norms = visitor.locator("#norms")
    expect(norms).to_contain_text("IM norm: needs 6, has 6 ✓")
    expect(norms).to_contain_text("unofficial unless the event is a registered title tournament")
    shoot(visitor, SHOTS, "crosstable")
    with visitor.expect_navigation():
        norms.get_by_role("link", name="Rating report").click()
    report = visitor.locator("table.rating-report")
    expect(report).to_contain_text("2378.3")
    expect(report).to_contain_text("provisional")
    shoot(visitor, SHOTS, "report")
