"""Browser fixtures: Debian's Chromium driven by Playwright (never a downloaded browser)."""

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
