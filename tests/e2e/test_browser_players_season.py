"""Players as people, the whole season in a real browser (issue 30's check).

Dvořák (the worked example of docs/ratings.md §5) registers for a round robin of ten whose
rating band is on "ICCF list 2026/4", imported: his rating is taken from the list by his ID.
The field is full, so he is put on the reserve list; he moves up when another player
withdraws; the organizer approves him and Jansen together and rejects two late requests
together with a reason. Registration closes, the stage is drawn and published (services: not
the point here), the organizer enters the example's results on the TD's results page for one
game and by the results service for the rest, and Dvořák opens his profile: the rating report
line (+28.3) and his IM norm figure (needs 6, has 6 ✓). Screenshots at 1280 and 360 px."""

import datetime

import pytest

from apps.entrants.models import Entrant
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group, Seat
from apps.office.services import publish_draw, start_draw
from apps.players.models import Registration
from apps.players.registrations import register, withdraw
from apps.ratinglists.models import RatingList
from apps.ratinglists.services import apply_rating_list, import_rating_list
from apps.results.services import enter_result
from apps.stages.services import create_tournament, update_stage
from tests.e2e.conftest import shoot, sign_in
from tests.ratinglists.conftest import example_list_csv
from tests.ratings import worked_example as example
from tests.worlds.published import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-season-123"
SHOT = "/tmp/closed-circle-{page}-{width}.png"  # looked at by people, not compared
RESULT = {"1": "1-0", "0": "0-1", "½": "1/2-1/2", "+": "+-", "−": "-+"}


def imported_csv() -> str:
    """The example's players but Dvořák (4) and Jansen (10), who register themselves."""
    lines = ["code,name,nation,rating,person"]
    for row in example.table("5.1"):
        if row[0] not in ("4", "10"):
            lines.append(f"E{row[0]},{row[1]},ITA,1500,P{row[0]}")
    return "\n".join(lines) + "\n"


def request(name: str, person: str = "") -> dict:
    return {
        "name": name,
        "federation": "ITA",
        "rating_list_id": person,
        "rating": None,
        "email": f"{name.lower()}@people.test",
    }


def example_result(game: Game) -> str:
    """The game's result in the example's crosstable (§5.1), by the players' list IDs."""
    rows = {row[0]: row for row in example.table("5.1")}
    white, black = game.white.person[1:], game.black.person[1:]
    return RESULT[rows[white][3 + int(black)]]


def test_register_reserve_move_up_approve_play_and_see_the_profile(live_server, browser):
    from playwright.sync_api import expect

    base = live_server.url
    organizer = make_user("organizer", PASSWORD, is_staff=True)
    import_rating_list(
        organizer,
        name="ICCF list 2026/4",
        list_date=datetime.date(2026, 10, 1),
        text=example_list_csv(),
    )
    cup = create_tournament(organizer, name="Season Cup", slug="season-cup")
    stage = update_stage(
        organizer,
        cup.first_stage,
        kind="final",
        format="round_robin",
        min_group_size=10,
        separate_nations=False,
        open_registration=True,
        rating_min=2000,
        rating_list="ICCF list 2026/4",
        unrated_allowed=True,
        max_field=10,
    )
    import_entrants(organizer, stage, imported_csv())  # eight places taken
    jansen, blocker = make_user("jansen", PASSWORD), make_user("zeno", PASSWORD)
    register(stage, actor=jansen, **request("Jansen", "P10"))
    held = register(stage, actor=blocker, **request("Zeno"))  # the tenth place
    make_user("dvorak", PASSWORD)

    # Dvořák registers: the field is full, he goes to the reserve list; the rating he
    # types is not asked for, the list's is taken by his ID.
    page = browser.new_context().new_page()
    sign_in(page, base, "dvorak", PASSWORD)
    page.goto(f"{base}/t/season-cup/")
    page.get_by_role("link", name="Register").click()
    expect(page.locator("#registration-rules")).to_contain_text(
        "Rating at least 2000 on ICCF list 2026/4 of 2026-10-01."
    )
    expect(page.locator("#rating-from-list")).to_be_visible()
    page.get_by_label("Name", exact=True).fill("Dvořák")
    page.get_by_label("Federation").fill("ITA")
    page.get_by_label("ID on the rating list").fill("P4")
    page.get_by_label("Contact e-mail").fill("dvorak@people.test")
    shoot(page, SHOT, "season-register")
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".messages")).to_contain_text("you are on the reserve list")
    expect(page.locator("#my-registrations tbody tr").first).to_contain_text(
        "place 1 on the reserve list"
    )
    for late in ("Late", "Later"):
        register(stage, actor=make_user(late.lower(), PASSWORD), **request(late))

    # Zeno withdraws: Dvořák moves up.
    withdraw(held, actor=blocker)
    page.reload()
    expect(page.locator("#my-registrations tbody tr").first).to_contain_text("waiting for approval")
    shoot(page, SHOT, "season-my-registrations")

    # The organizer approves Dvořák and Jansen together, then rejects the two late ones.
    org = browser.new_context().new_page()
    sign_in(org, base, "organizer", PASSWORD)
    org.goto(f"{base}/t/season-cup/s/1/registrations/")
    expect(org.locator("#requests")).to_contain_text(
        "Rating 2350 is at least 2000 on ICCF list 2026/4 of 2026-10-01."
    )
    org.get_by_label("Choose Dvořák").check()
    org.get_by_label("Choose Jansen").check()
    org.get_by_label("Approve").check()
    org.get_by_role("button", name="Apply").click()
    expect(org.locator(".messages")).to_contain_text("2 requests approved")
    org.get_by_label("Choose Late", exact=True).check()
    org.get_by_label("Choose Later").check()
    org.get_by_label("Reject").check()
    org.get_by_label("Reason", exact=True).fill("The field is full")
    org.get_by_role("button", name="Apply").click()
    expect(org.locator(".messages")).to_contain_text("2 requests rejected")
    shoot(org, SHOT, "season-requests")
    statuses = dict(Registration.objects.values_list("name", "status"))
    assert statuses == {
        "Jansen": "approved",
        "Zeno": "withdrawn",
        "Dvořák": "approved",
        "Late": "rejected",
        "Later": "rejected",
    }
    dvorak = Entrant.objects.get(person="P4")
    assert (dvorak.user.username, dvorak.rating) == ("dvorak", 2350)

    # Setup that is not the point: ratings from the list, registration closed, drawn,
    # published.
    stage.refresh_from_db()
    apply_rating_list(organizer, stage, RatingList.objects.get(name="ICCF list 2026/4"))
    close_registration(organizer, stage)
    start_draw(organizer, stage, "season seed")
    publish_draw(organizer, stage)
    group = Group.objects.get(stage=stage, number=1)
    assert Seat.objects.filter(group=group).count() == 10

    # One result on the TD's results page, the others by the results service.
    games = list(Game.objects.filter(group=group).select_related("white", "black"))
    mine = next(g for g in games if "P4" in (g.white.person, g.black.person))
    org.goto(f"{base}/t/season-cup/s/1/g/1/results/")
    org.locator(f"#game-{mine.number}").first.click()
    dialog = org.locator("#result-dialog")
    expect(dialog).to_be_visible()
    label = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "½-½"}[example_result(mine)]
    dialog.get_by_label("Result").select_option(label=label)
    dialog.get_by_role("button", name="Save").click()
    expect(org.locator(".messages")).to_contain_text("Saved")
    for game in games:
        if game.pk != mine.pk:
            enter_result(organizer, game, example_result(game), expected_version=game.version)
    mine.refresh_from_db()
    assert mine.result == example_result(mine)

    # Dvořák's profile: his rating report line and his IM norm figure.
    page.goto(f"{base}/players/me/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Dvořák")
    expect(page.locator(".rating-change").first).to_have_text("+28.3")
    expect(page.locator(".norms").first).to_contain_text("IM norm: needs 6, has 6 ✓")
    expect(page.locator("main")).to_contain_text(
        "unofficial unless the event is a registered title tournament"
    )
    shoot(page, SHOT, "season-profile")
