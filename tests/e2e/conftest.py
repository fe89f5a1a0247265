"""Browser fixtures: Debian's Chromium driven by Playwright (never a downloaded browser)."""

import re

import pytest

from tests.conftest import CHROMIUM

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def browser(monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop on this thread; the test's own ORM calls are
    # still plain synchronous code, so Django's async guard must not refuse them.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()
    playwright.stop()


def say_yes(page) -> None:
    """Answer yes in the dialog a form with ``data-confirm`` opens (static/js/confirm.js)."""
    page.locator("#confirm-dialog [data-confirm-yes]").click()


def submit_sign_in(page) -> None:
    """Press "Sign in" on the filled-in sign-in page. A first sign-in of an account without a
    display name is asked for one (apps/accounts/views.py SignInView): answer "Later", which
    goes on to where the sign-in was going."""
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    if "/me/name/" in page.url:
        with page.expect_navigation():
            page.get_by_role("link", name="Later").click()


PHONE = {"width": 360, "height": 800}
DESKTOP = {"width": 1280, "height": 900}
# A claim link in an e-mail (templates/notifications/email/_way_in.txt): its path and query.
CLAIM_LINK = re.compile(r"https?://[^/\s]+(/accounts/claim/[^/\s]+/(?:\?next=\S+)?)")


def sign_in(page, base: str, username: str, password: str) -> None:
    """Sign in on the sign-in page (answering "Later" to a first sign-in's name question)."""
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    submit_sign_in(page)


def shoot(page, pattern: str, name: str) -> list[str]:
    """Screenshots of the whole page at desktop and phone width (``pattern`` has ``{page}``
    and ``{width}``), looked at by people, not compared; nothing may be wider than the screen
    (the page does not scroll sideways). Returns the files' paths; the page is left at
    desktop width."""
    paths = []
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        path = pattern.format(page=name, width=viewport["width"])
        page.screenshot(path=path, full_page=True)
        paths.append(path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (name, viewport, width)
    page.set_viewport_size(DESKTOP)
    return paths


def import_results_csv(page, lines: list[str]) -> None:
    """On a group's results page: choose a results CSV made of ``lines`` (after its header)
    and press "Preview the import"."""
    text = "\n".join(["white,black,result", *lines]) + "\n"
    page.locator("input[type=file]").set_input_files(
        {"name": "results.csv", "mimeType": "text/csv", "buffer": text.encode()}
    )
    page.get_by_role("button", name="Preview the import").click()


# Each Swiss round's results, board by board (as a round page's result list labels them).
ROUND_RESULTS = ["1-0", "½-½", "0-1", "1-0"]


def play_round(page, number: int, boards: int = 4) -> None:
    """On a Swiss round's page: enter every board's result of round ``number``, board by
    board (``ROUND_RESULTS``, again from the start past the fourth board)."""
    from playwright.sync_api import expect

    expect(page.locator("table.boards tbody tr")).to_have_count(boards)
    for board in range(1, boards + 1):
        row = page.locator(f"tr#board-{board}")
        result = ROUND_RESULTS[(board - 1) % len(ROUND_RESULTS)]
        row.get_by_label(f"Result on board {board}").select_option(label=result)
        row.get_by_role("button", name="Save").click()
        expect(page.locator(".messages")).to_contain_text("Saved")
        expect(page).to_have_url(re.compile(rf"/rounds/{number}/#board-{board}$"))
        expect(page.locator(f"tr#board-{board} .round-result")).to_be_visible()
