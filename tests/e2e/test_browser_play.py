"""A game played on this server, in a real browser: White (at desktop width) and Black (on a
360 px phone, in another browser context) play the fool's mate on the board — squares clicked,
a piece dragged, a move typed into the move field — while White offers a draw after the first
move and Black declines it. Every action goes through the API from the page's script, and the
page follows without a reload (White's page finds Black's answer by itself); the mate ends the
game 0-1 and the group's standings show it. The TD adds days to a clock on the board.
Screenshots of the board at phone and desktop width are saved (``shoot``)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.groups.models import Game
from apps.play.models import Move, PlayedGame
from apps.standings.models import GroupStanding
from tests.e2e.conftest import DESKTOP, PHONE, shoot, sign_in
from tests.worlds.play import build_play_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-play-123"
SHOTS = "/tmp/closed-circle-{page}-{width}.png"  # looked at by people, not compared


@pytest.fixture
def world(transactional_db):
    """Built outside a test transaction: every action's side effects run on its commit."""
    world = build_play_world(None, password=PASSWORD, slug="play-board-cup", draw_earliest_move=1)
    # The world's clocks start at a fixed instant; this game is played now, so it began an
    # hour ago.
    PlayedGame.objects.filter(stage=world.stage).update(
        started_at=timezone.now() - timedelta(hours=1)
    )
    return world


def square(page, name: str):
    return page.locator(f'[data-board] rect[data-square="{name}"]')


def centre(page, name: str) -> tuple[float, float]:
    """The square's centre on the screen (scrolled into view first)."""
    square(page, name).scroll_into_view_if_needed()
    box = square(page, name).bounding_box()
    assert box is not None, name
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def click_move(page, start: str, end: str) -> None:
    """Play a move by clicking its square, then its target square."""
    for name in (start, end):
        page.mouse.click(*centre(page, name))


def drag_move(page, start: str, end: str) -> None:
    """Play a move by dragging the piece from its square to the target."""
    page.locator("[data-board]").scroll_into_view_if_needed()
    page.mouse.move(*centre(page, start))
    page.mouse.down()
    x, y = centre(page, end)
    page.mouse.move(x, y, steps=8)
    page.mouse.up()


def open_board(page, url: str) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.locator("[data-play][data-ready]")).to_have_count(1)
    expect(page.locator("[data-board] svg").first).to_be_visible()


def test_two_players_play_to_mate_on_the_board_and_the_standings_follow(
    live_server, browser, world
):
    from playwright.sync_api import expect

    base = live_server.url
    game = world.game
    stage = world.stage
    white_user, black_user = world.users["white"], world.users["black"]
    url = (
        f"{base}/t/{stage.tournament.slug}/s/{stage.order}/g/{world.group.number}"
        f"/games/{game.number}/play/"
    )

    white = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(white, base, white_user.username, PASSWORD)
    black = browser.new_context(viewport=PHONE).new_page()
    sign_in(black, base, black_user.username, PASSWORD)

    # White, at desktop width: 1. f3, clicked on the board; the page follows without a reload.
    white.clock.install()  # the page's timers jump ahead when the test says so
    open_board(white, url)
    expect(white.locator(".play-status")).to_contain_text("Your move")
    white.evaluate("window.notReloaded = true")
    click_move(white, "f2", "f3")
    expect(white.locator(".play-moves")).to_contain_text("f3")
    expect(white.locator(".play-status")).to_contain_text("Black to move")
    assert white.evaluate("window.notReloaded") is True
    # … and offers a draw.
    white.get_by_role("button", name="Offer a draw").click()
    expect(white.locator("[data-play-message]")).to_contain_text("Draw offered")
    expect(white.locator(".play-draw-offer")).to_contain_text("You offered a draw")

    # Black, on a phone: the board fits the screen; declines the draw, then 1… e5, dragged.
    open_board(black, url)
    board_width = black.locator("[data-board]").bounding_box()["width"]
    assert 300 <= board_width <= PHONE["width"], board_width
    expect(black.locator(".play-draw-offer")).to_contain_text("Your opponent offers a draw")
    black.get_by_role("button", name="Decline the draw").click()
    expect(black.locator("[data-play-message]")).to_contain_text("Draw declined")
    expect(black.locator(".play-draw-offer")).to_have_count(0)
    drag_move(black, "e7", "e5")
    expect(black.locator(".play-moves")).to_contain_text("e5")
    expect(black.locator(".play-status")).to_contain_text("White to move")

    # White's page, never reloaded, finds Black's answer by itself (it looks every 20 s).
    white.clock.fast_forward("00:30")
    expect(white.locator(".play-moves")).to_contain_text("e5")
    expect(white.locator(".play-status")).to_contain_text("Your move")
    expect(white.locator(".play-draw-offer")).to_have_count(0)
    assert white.evaluate("window.notReloaded") is True

    # White: 2. g4, typed into the move field (the same form works without JavaScript).
    white.get_by_label("Your move").fill("g4")
    white.get_by_role("button", name="Move", exact=True).click()
    expect(white.locator(".play-moves")).to_contain_text("g4")

    # An illegal move on the board goes back: the server is not asked, nothing moves.
    black.reload()
    click_move(black, "e5", "e3")
    expect(black.locator("[data-play]")).to_have_attribute("data-ply", "3")

    # Black: 2… Qh4#, clicked. The game is over, 0-1.
    click_move(black, "d8", "h4")
    expect(black.locator(".play-status")).to_contain_text("The game is over")
    expect(black.locator(".play-status")).to_contain_text("0-1")
    expect(black.get_by_role("button", name="Resign")).to_have_count(0)
    shoot(black, SHOTS, "play-board")

    stored = Game.objects.get(pk=game.pk)
    assert stored.result == "0-1"
    assert list(Move.objects.filter(game_id=game.pk).values_list("san", flat=True)) == [
        "f3",
        "e5",
        "g4",
        "Qh4#",
    ]

    # The result reaches the group's standings (its recompute ran on the result's commit).
    standing = GroupStanding.objects.get(group=world.group, entrant=game.black)
    assert standing.points == 1 and standing.finished == 1
    white.goto(
        f"{base}/t/{stage.tournament.slug}/s/{stage.order}/g/{world.group.number}/standings/"
    )
    black_row = white.locator("table.standings tbody tr").filter(has_text=game.black.name)
    expect(black_row.locator("td").nth(5)).to_have_text("1")


def test_the_td_adds_days_to_a_clock_on_the_board(live_server, browser, world):
    from playwright.sync_api import expect

    base = live_server.url
    stage, game = world.stage, world.game
    url = (
        f"{base}/t/{stage.tournament.slug}/s/{stage.order}/g/{world.group.number}"
        f"/games/{game.number}/play/"
    )
    td = browser.new_context(viewport=PHONE).new_page()
    sign_in(td, base, world.users["td"].username, PASSWORD)
    open_board(td, url)
    expect(td.locator('[data-clock="black"]')).to_contain_text("50 days left")
    expect(td.get_by_label("Your move")).to_have_count(0)
    td.get_by_text("Add days to a clock (TD)").click()
    td.get_by_label("Whose clock").select_option("black")
    td.get_by_label("Days").fill("5")
    td.get_by_label("Reason").fill("a postal strike")
    td.get_by_role("button", name="Add the days").click()
    expect(td.locator("[data-play-message]")).to_contain_text("Days added")
    expect(td.locator('[data-clock="black"]')).to_contain_text("55 days left")
    assert PlayedGame.objects.get(pk=game.pk).extra_days_black == 5
