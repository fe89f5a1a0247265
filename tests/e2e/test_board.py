"""The board viewer (templates/results/_board.html, static/js/board.js) in a real browser, on a
page of this module's own URLconf: the board starts at the initial position, the buttons, the
keys and the move list step through the game, a score that cannot be read shows a message and
stays as text, the board fits a phone, and every vendored file loads from static/."""

import pytest
from django.http import HttpResponse
from django.template import engines
from django.urls import include, path

from tests.e2e.conftest import browser  # noqa: F401 (the fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.urls(__name__),
]

GAME = """[Event "Board test"]
[White "O'Brien, <Tom>"]
[Black "Smith & Co"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 1-0"""
BROKEN = "1. e4 e5 2. Ke3 1-0"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SHOT = "/tmp/closed-circle-board-{width}.png"  # looked at by people, not compared

PAGE = """{% extends "base.html" %}
{% block content %}
  <h1>Board test</h1>
  {% include "results/_board.html" with pgn=game %}
  <div id="broken">{% include "results/_board.html" with pgn=broken %}</div>
{% endblock %}"""


def board_page(request):
    template = engines["django"].from_string(PAGE)
    return HttpResponse(template.render({"game": GAME, "broken": BROKEN}, request))


# Test-only URLconf: the page above, and the site's own URLs that base.html links to.
urlpatterns = [path("board-test/", board_page), path("", include("config.urls"))]


def piece(viewer, square: str, name: str):
    return viewer.locator(f"svg.cm-chessboard g[data-square='{square}'][data-piece='{name}']")


@pytest.fixture
def page(live_server, browser):  # noqa: F811
    page = browser.new_page(viewport=DESKTOP)
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.on("pageerror", lambda error: failed.append(str(error)))
    page.goto(f"{live_server.url}/board-test/")
    yield page
    assert failed == []


def test_the_board_steps_through_the_game(page):
    from playwright.sync_api import expect

    viewer = page.locator("[data-pgn-viewer]").first
    expect(viewer.locator("svg.cm-chessboard")).to_be_visible()
    expect(viewer.locator("[data-source]")).to_be_hidden()
    # The start position, drawn from the vendored sprite.
    expect(page.locator("#cm-chessboard-sprite svg #wk")).to_have_count(1)
    expect(piece(viewer, "e2", "wp")).to_have_count(1)
    expect(piece(viewer, "e4", "wp")).to_have_count(0)
    expect(viewer.get_by_role("button", name="Previous move")).to_be_disabled()
    expect(viewer.locator("[data-status]")).to_have_text("Start position")

    viewer.get_by_role("button", name="Next move").click()
    expect(piece(viewer, "e4", "wp")).to_have_count(1)
    expect(piece(viewer, "e2", "wp")).to_have_count(0)
    expect(viewer.locator(".pgn-move[aria-current]")).to_have_text("e4")
    expect(viewer.locator("[data-status]")).to_have_text("1. e4")

    # A move in the list jumps there: castling put the king on g1 and the rook on f1.
    viewer.locator("[data-moves]").get_by_role("button", name="O-O", exact=True).click()
    expect(viewer).to_have_attribute("data-ply", "9")
    expect(piece(viewer, "g1", "wk")).to_have_count(1)
    expect(piece(viewer, "f1", "wr")).to_have_count(1)
    expect(viewer.locator(".pgn-move.current")).to_have_text("O-O")

    viewer.get_by_role("button", name="Last position").click()
    expect(piece(viewer, "b5", "bp")).to_have_count(1)
    expect(viewer.get_by_role("button", name="Next move")).to_be_disabled()
    expect(viewer.locator("[data-status]")).to_have_text("6… b5")
    viewer.get_by_role("button", name="First position").click()
    expect(viewer).to_have_attribute("data-ply", "0")
    expect(piece(viewer, "e2", "wp")).to_have_count(1)


def test_the_arrow_keys_step_while_the_viewer_has_focus(page):
    from playwright.sync_api import expect

    viewer = page.locator("[data-pgn-viewer]").first
    expect(viewer.locator("svg.cm-chessboard")).to_be_visible()
    viewer.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(viewer).to_have_attribute("data-ply", "2")
    expect(piece(viewer, "e5", "bp")).to_have_count(1)
    page.keyboard.press("End")
    expect(viewer).to_have_attribute("data-ply", "12")
    page.keyboard.press("ArrowLeft")
    expect(viewer).to_have_attribute("data-ply", "11")
    page.keyboard.press("Home")
    expect(viewer).to_have_attribute("data-ply", "0")


def test_a_score_that_cannot_be_read_shows_a_message_and_the_text(page):
    from playwright.sync_api import expect

    broken = page.locator("#broken [data-pgn-viewer]")
    expect(broken.get_by_role("alert")).to_contain_text("cannot show this game score")
    expect(broken.locator("pre")).to_be_visible()
    expect(broken.locator("pre")).to_have_text(BROKEN)
    expect(broken.locator("svg")).to_have_count(0)
    expect(broken.locator("[data-controls]")).to_be_hidden()
    # The good viewer on the same page is unaffected, and its PGN kept its quotes and <, &.
    viewer = page.locator("[data-pgn-viewer]").first
    expect(viewer.locator("svg.cm-chessboard")).to_be_visible()
    assert viewer.get_attribute("data-pgn") == GAME


def test_the_board_fits_a_phone_and_stops_growing_on_a_desktop(page):
    from playwright.sync_api import expect

    board = page.locator("[data-pgn-viewer] svg.cm-chessboard").first
    expect(board).to_be_visible()
    page.get_by_role("button", name="Bb5").click()  # for the screenshots
    expect(piece(page.locator("[data-pgn-viewer]").first, "b5", "wb")).to_have_count(1)
    box = board.bounding_box()
    assert box is not None and 400 <= box["width"] <= 481
    page.screenshot(path=SHOT.format(width=DESKTOP["width"]), full_page=True)
    page.set_viewport_size(PHONE)
    page.wait_for_function(
        "document.querySelector('[data-pgn-viewer] svg.cm-chessboard')"
        ".getBoundingClientRect().width < 390"
    )
    box = board.bounding_box()
    assert box is not None and 250 <= box["width"] < PHONE["width"]
    assert abs(box["width"] - box["height"]) < 2
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=SHOT.format(width=PHONE["width"]), full_page=True)


def test_without_javascript_the_game_score_shows_as_text(live_server, browser):  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/board-test/")
    viewer = page.locator("[data-pgn-viewer]").first
    expect(viewer.locator("pre")).to_have_text(GAME)
    expect(viewer.locator("[data-board]")).to_be_hidden()
    expect(viewer.locator("[data-error]")).to_be_hidden()
    context.close()
