"""A group's TD enters results in a real browser: three results from the grid (mouse and
keyboard), a correction with a reason, a withdrawal; the standings and the crosstable follow.
Screenshots of the results page and the crosstable at phone and desktop width are saved."""

import re

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament
from apps.standings.models import GroupStanding
from tests.e2e.conftest import say_yes, submit_sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-td-123"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SHOTS = "/tmp/closed-circle-{page}-{width}.png"  # looked at by people, not compared


@pytest.fixture
def group(db):
    users = get_user_model().objects
    organizer = users.create_user("td-org", "o@example.org", "unused")
    td = users.create_user("td-e2e", "td@example.org", PASSWORD)
    cup = create_tournament(
        organizer,
        name="TD Cup",
        slug="td-cup",
        games_per_player=6,
        stages=[{"min_group_size": 30}],
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(60, "td-e2e")))
    close_registration(organizer, stage)
    start_draw(organizer, stage, "td seed")
    publish_draw(organizer, stage)
    group = Group.objects.get(stage=stage, number=1)
    group.td = td
    group.save(update_fields=["td"])
    return group


def enter(page, cell, result: str, reason: str = "") -> None:
    """Open ``cell`` with a click, choose ``result`` and save in the dialog."""
    from playwright.sync_api import expect

    cell.click()
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Result").select_option(label=result)
    if reason:
        dialog.get_by_label("Reason").fill(reason)
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Saved")


def shoot(page, name: str, viewport: dict) -> None:
    """The whole page, and on a phone also one screen from the table on (readable size)."""
    page.screenshot(path=SHOTS.format(page=name, width=viewport["width"]), full_page=True)
    if viewport is PHONE:
        page.locator(".table-wrap").first.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS.format(page=f"{name}-table", width=viewport["width"]))
        page.locator(".table-wrap").first.evaluate("wrap => wrap.scrollBy(400, 0)")
        page.screenshot(path=SHOTS.format(page=f"{name}-scrolled", width=viewport["width"]))


def row_of(page, seat: int):
    return page.locator(f"tr#seat-{seat}")


def test_a_td_enters_corrects_withdraws_and_standings_follow(live_server, browser, group):
    from playwright.sync_api import expect

    base = f"{live_server.url}/t/td-cup/s/1/g/1"
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{base}/results/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    page.fill("#id_username", "td-e2e")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)
    expect(page.get_by_role("heading", level=1)).to_contain_text("Enter results")

    seat1 = row_of(page, 1).locator("a.rc")
    expect(seat1).to_have_count(3)  # 6 games: 3 with White are entered in this row
    first_game = seat1.nth(0).get_attribute("data-game")

    # 1) a click: seat 1 wins its first White game
    enter(page, seat1.nth(0), "1-0")
    expect(row_of(page, 1).locator("a.rc").nth(0)).to_be_focused()
    expect(row_of(page, 1).locator("a.rc").nth(0).locator(".sym")).to_have_text("1")

    # 2) the keyboard: from the focused game, arrow right and Enter, then a draw
    page.keyboard.press("ArrowRight")
    expect(row_of(page, 1).locator("a.rc").nth(1)).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.locator("#result-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Result").select_option(label="½-½")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Saved")
    expect(row_of(page, 1).locator("a.rc").nth(1).locator(".sym")).to_have_text("½")

    # 3) a forfeit in seat 2's row
    enter(page, row_of(page, 2).locator("a.rc").nth(0), "+− (White wins by forfeit)")
    expect(row_of(page, 2).locator("a.rc").nth(0).locator(".sym")).to_have_text("+")

    # a correction needs a reason: the dialog will not send without one
    cell = page.locator(f"#game-{first_game}")
    cell.click()
    expect(dialog).to_contain_text("A correction needs a reason")
    dialog.get_by_label("Result").select_option(label="0-1")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_be_visible()
    dialog.get_by_label("Reason").fill("scoresheet misread")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Saved")
    expect(page.locator(f"#game-{first_game} .sym")).to_have_text("0")
    expect(page.locator("table.changes")).to_contain_text("scoresheet misread")

    # withdraw the player in seat 3
    seat3_name = row_of(page, 3).locator("td.name").inner_text().split("\n")[0].rsplit(" ", 1)[0]
    page.get_by_label("Entrant").select_option(index=3)
    page.locator(".withdrawal-form").get_by_label("Reason").fill("left the tournament")
    page.get_by_role("button", name="Withdraw").click()
    say_yes(page)
    expect(page.locator(".messages")).to_contain_text("has withdrawn")
    expect(row_of(page, 3)).to_contain_text("withdrawn")

    for width in (DESKTOP, PHONE):
        page.set_viewport_size(width)
        page.goto(f"{base}/results/")
        shoot(page, "results", width)
    page.locator(f"#game-{first_game}").click()
    expect(dialog).to_be_visible()
    page.screenshot(path=SHOTS.format(page="dialog", width=PHONE["width"]))
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator(f"#game-{first_game}")).to_be_focused()

    # standings: places and points follow the results
    page.set_viewport_size(DESKTOP)
    page.goto(f"{base}/standings/")
    top = GroupStanding.objects.filter(group=group).order_by("position").first()
    first_row = page.locator("table.standings tbody tr").first
    expect(first_row.locator("td").nth(1)).to_have_text(str(top.seat))
    expect(page.locator("table.standings")).to_contain_text("withdrawn")
    seat1_standing = GroupStanding.objects.get(group=group, seat=1)
    assert seat1_standing.points == 0.5  # 0-1 after the correction, then ½
    seat3 = page.locator("table.standings tbody tr").filter(has_text=seat3_name)
    expect(seat3).to_contain_text("withdrawn")
    expect(seat3.locator("td").nth(5)).to_have_text("0")

    # crosstable: the forfeits and the correction are there
    page.goto(f"{base}/crosstable/")
    expect(page.locator("tr#seat-1 .sym").filter(has_text="½")).to_have_count(1)
    forfeits = Game.objects.filter(group=group, result__in=["+-", "-+"]).count()
    assert forfeits == 7  # 1 entered + 6 from the withdrawal
    expect(page.locator("tr#seat-3 .sym").filter(has_text="−")).to_have_count(6)
    expect(page.locator(".status-counts")).to_contain_text("Forfeits7")
    for width in (DESKTOP, PHONE):
        page.set_viewport_size(width)
        shoot(page, "crosstable", width)
    page.close()
