"""Results at the players' and the TD's hands, in a real browser: a player reports a result
with its game score on the game's page, the opponent (signed in in another browser context)
confirms it from "My games", and the game's page shows the moves on the board; the TD
imports a CSV file whose one bad line is listed, fixes it and imports it. Screenshots of the
game page at phone and desktop width are saved."""

import pytest

from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.results.models import ResultReport
from tests.e2e.conftest import import_results_csv, submit_sign_in
from tests.worlds.published import build_world, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-report-123"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SHOT = "/tmp/closed-circle-game-{width}.png"  # looked at by people, not compared
WHITE_MATES = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"
BLACK_MATES = "1. f3 e5 2. g4 Qh4# 0-1"


@pytest.fixture
def world(transactional_db):
    """Built outside a test transaction: every action's side effects run on its commit."""
    return build_world(None, password=PASSWORD, slug="report-cup")


def sign_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)


def test_a_player_reports_with_the_score_and_the_opponent_confirms(live_server, browser, world):
    from playwright.sync_api import expect

    base = live_server.url
    game = world.player_game
    white = game.white_id == world.player_entrant.pk
    opponent = make_user("report-opponent", PASSWORD)
    Entrant.objects.filter(pk=game.black_id if white else game.white_id).update(user=opponent)

    # The player: from "My games" to the game's page, the result and the moves.
    player = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(player, base, "player")
    player.goto(f"{base}/me/")
    row = player.locator(f"#report-{game.pk}").locator("xpath=ancestor::tr")
    row.get_by_role("link", name="with the score").click()
    form = player.locator("#report")
    expect(form).to_be_visible()
    form.get_by_label("Result").select_option("1-0" if white else "0-1")
    form.get_by_label("Game score (PGN, optional)").fill(WHITE_MATES if white else BLACK_MATES)
    form.get_by_role("button", name="Report", exact=True).click()
    expect(player.locator(".messages")).to_contain_text("is asked to confirm it")
    expect(player.locator("#answer")).to_contain_text("awaits your opponent's answer")

    # The opponent, in another browser context: the answer waits in "My games".
    other = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(other, base, "report-opponent")
    other.goto(f"{base}/me/")
    cell = other.locator("td.my-result", has_text="reported by your opponent")
    expect(cell).to_have_count(1)
    cell.get_by_role("button", name="Confirm").click()
    expect(other.locator(".messages")).to_contain_text("Confirmed")
    expect(other).to_have_url(f"{base}/me/#entry-{other_code(world, game)}-1")

    stored = Game.objects.get(pk=game.pk)
    assert stored.result == ("1-0" if white else "0-1") and "#" in stored.pgn
    assert ResultReport.objects.get().status == "confirmed"

    # The game's page: the result, the board, the moves to step through.
    player.reload()
    expect(player.locator(".game-result")).to_contain_text("1-0" if white else "0-1")
    viewer = player.locator("[data-pgn-viewer]")
    expect(viewer.locator("[data-board]")).to_be_visible()
    viewer.get_by_role("button", name="Last position").click()
    expect(viewer.locator("[data-moves] .current")).to_contain_text("#")
    for viewport in (DESKTOP, PHONE):
        player.set_viewport_size(viewport)
        player.screenshot(path=SHOT.format(width=viewport["width"]), full_page=True)
    player.context.close()
    other.context.close()


def other_code(world, game) -> str:
    return game.black.code if game.white_id == world.player_entrant.pk else game.white.code


def test_a_td_imports_a_csv_fixes_the_bad_line_and_imports_it(live_server, browser, world):
    from playwright.sync_api import expect

    base = live_server.url
    games = list(Game.objects.filter(group=world.group).select_related("white", "black")[:3])
    good = [f"{g.white.code},{g.black.code},1-0" for g in games]
    swapped = f"{games[2].black.code},{games[2].white.code},1-0"  # colours swapped
    page = browser.new_page(viewport=DESKTOP)
    sign_in(page, base, "td1")
    page.goto(f"{base}/t/report-cup/s/1/g/1/results/")

    import_results_csv(page, [*good[:2], swapped])
    expect(page.locator("main")).to_contain_text("Nothing was imported")
    bad = page.locator("tr", has_text="colours swapped")
    expect(bad).to_have_count(1)
    expect(bad.locator("td").first).to_have_text("4")
    assert not Game.objects.filter(group=world.group).exclude(result="").exists()

    import_results_csv(page, good)
    confirm = page.get_by_role("button", name="Confirm: import 3 games")
    expect(confirm).to_be_visible()
    confirm.click()
    expect(page.locator(".messages")).to_contain_text("Imported: 3 games changed")
    assert Game.objects.filter(pk__in=[g.pk for g in games], result="1-0").count() == 3
    page.close()
