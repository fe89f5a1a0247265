"""An organizer runs a stage from registration to publication in a real browser; then a
visitor on a phone finds a player and reads their opponents and colours."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import DrawJob, DrawJobGroup
from apps.stages.services import create_tournament
from tests.e2e.conftest import say_yes, submit_sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-e2e-123"
PHONE = {"width": 390, "height": 844}
BROKEN = "code,name,nation\nA1,Ann,ITA\nA2,,GER\nA1,Cy,FRA\nA4,Dee,F\n"
SHOTS = {
    page: f"/tmp/closed-circle-{page}-phone.png" for page in ("stage", "find", "group", "manage")
} | {"review": "/tmp/closed-circle-review-desktop.png"}


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("e2e-org", "o@example.org", PASSWORD)


@pytest.fixture
def cup(organizer):
    return create_tournament(organizer, name="E2E Cup", slug="e2e-cup", games_per_player=10)


def sign_in(page, url: str) -> None:
    """Open ``url``, which sends us to the login page, and sign in as the organizer."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    page.fill("#id_username", "e2e-org")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)


def test_organizer_imports_closes_draws_publishes_and_a_visitor_finds_a_player(
    live_server, browser, cup, tmp_path
):
    from playwright.sync_api import expect

    entrants = make_entrants(300, "e2e")
    good = tmp_path / "entrants.csv"
    good.write_text(entrants_csv(entrants), encoding="utf-8")
    broken = tmp_path / "broken.csv"
    broken.write_text(BROKEN, encoding="utf-8")
    base = live_server.url

    organizer = browser.new_context()
    page = organizer.new_page()
    sign_in(page, f"{base}/t/e2e-cup/s/1/manage/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Manage")

    page.set_input_files("#id_file", str(broken))
    page.get_by_role("button", name="Preview the import").click()
    expect(page.get_by_role("heading", name="Nothing was imported")).to_be_visible()
    report = page.locator("table.report tbody tr")
    expect(report).to_have_count(3)
    expect(report.nth(0)).to_contain_text("3")
    expect(report.nth(2)).to_contain_text("5")

    page.set_input_files("#id_file", str(good))
    page.get_by_role("button", name="Preview the import").click()
    confirm = page.get_by_role("button", name="Confirm import of 300 entrants")
    expect(confirm).to_be_visible()
    confirm.click()
    expect(page.locator(".messages")).to_contain_text("Imported 300 entrants")

    page.get_by_role("button", name="Close registration").click()
    expect(page.locator(".messages")).to_contain_text(re.compile(r"SHA-256\): [0-9a-f]{64}"))

    page.fill("#id_seed", "Lotto e2e 17 42 5")
    page.get_by_role("button", name="Start the draw").click()
    expect(page).to_have_url(re.compile(r"/t/e2e-cup/s/1/draw/\d+/$"))
    expect(page.locator("progress")).to_have_attribute("value", "100")
    expect(page.locator("#draw-progress")).to_contain_text("Done")
    expect(page.locator("#draw-progress")).to_contain_text("3 of 3 groups")
    expect(page.locator("#review table.groups tbody tr")).to_have_count(3)
    page.screenshot(path=SHOTS["review"], full_page=True)
    page.get_by_role("button", name="Publish").click()
    say_yes(page)
    expect(page.locator(".messages")).to_contain_text("The draw is published")
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/t/e2e-cup/s/1/manage/")
    page.screenshot(path=SHOTS["manage"], full_page=True)
    organizer.close()

    visitor = browser.new_context(viewport=PHONE, device_scale_factor=1)
    phone = visitor.new_page()
    phone.goto(f"{base}/t/e2e-cup/s/1/")
    expect(phone.locator("table.groups tbody tr")).to_have_count(3)
    phone.screenshot(path=SHOTS["stage"], full_page=True)

    player = entrants[0]
    phone.goto(f"{base}/t/e2e-cup/")
    phone.get_by_placeholder("Find a player: name or code").fill(player.name.split(",")[0])
    phone.get_by_role("button", name="Find").click()
    card = phone.locator("article.player").filter(has_text=player.code)
    expect(card).to_be_visible()
    expect(card.locator("tbody tr")).to_have_count(10)
    expect(card.locator("tbody tr").filter(has_text="White")).to_have_count(5)
    expect(card.locator("tbody tr").filter(has_text="Black")).to_have_count(5)
    opponent = card.locator("tbody tr").first.locator("td").nth(2).inner_text()
    assert opponent.strip() and opponent.strip() != player.name
    phone.screenshot(path=SHOTS["find"], full_page=True)

    card.get_by_role("link", name=re.compile(r"group \d+")).click()
    expect(phone.locator("tr:target")).to_contain_text(player.name)
    phone.screenshot(path=SHOTS["group"])
    visitor.close()


def test_the_progress_bar_follows_a_running_draw_and_shows_its_failure(
    live_server, browser, cup, organizer
):
    from playwright.sync_api import expect

    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(300, "e2e")))
    close_registration(organizer, stage)
    # A job as a worker leaves it midway: divided into 3 groups, none drawn yet.
    job = DrawJob.objects.create(
        stage=stage, seed="slow", status=DrawJob.Status.RUNNING, total_groups=3
    )
    DrawJobGroup.objects.bulk_create(DrawJobGroup(job=job, number=n) for n in (1, 2, 3))

    page = browser.new_page()
    sign_in(page, f"{live_server.url}/t/e2e-cup/s/1/draw/{job.pk}/")
    box = page.locator("#draw-progress")
    expect(box).to_contain_text("0 of 3 groups")
    # what draw_one_group does when it stores a group's result
    DrawJobGroup.objects.filter(job=job, number=1).update(payload="{}")
    DrawJob.objects.filter(pk=job.pk).update(done_groups=1)
    expect(box).to_contain_text("1 of 3 groups")
    expect(page.locator("progress")).to_have_js_property("value", 33)
    DrawJob.objects.filter(pk=job.pk).update(
        status=DrawJob.Status.FAILED, error="Group 2 cannot be seated."
    )
    expect(page.get_by_role("heading", name="The draw failed")).to_be_visible()
    expect(box).to_contain_text("Group 2 cannot be seated.")
    expect(page.get_by_role("button", name="Retry with the same seed")).to_be_visible()
    page.close()
