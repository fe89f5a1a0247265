"""static/js/confirm.js in a real browser: a form with data-confirm asks first — Cancel
sends nothing, the dialog's button submits the form (with the clicked button's value) —
and without JavaScript the form submits at once."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from tests.e2e.conftest import browser, submit_sign_in  # noqa: F401 (browser: the fixture)
from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-confirm-123"


@pytest.fixture
def tokened(transactional_db):
    user = get_user_model().objects.create_user("confirmer", "c@people.test", PASSWORD)
    return user, Token.objects.create(user=user).key


def _sign_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "confirmer")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)


def test_the_dialog_asks_before_a_new_token_replaces_the_old(live_server, browser, tokened):  # noqa: F811
    from playwright.sync_api import expect

    user, old = tokened
    page = browser.new_page()
    _sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/me/token/")
    page.get_by_role("button", name="Make a new token").click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("The old one stops working at once")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert Token.objects.get(user=user).key == old

    page.get_by_role("button", name="Make a new token").click()
    dialog.get_by_role("button", name="Make a new token").click()
    expect(page.locator(".messages")).to_contain_text("Your new token is below")
    assert Token.objects.get(user=user).key != old


def test_without_javascript_the_form_submits_at_once(live_server, browser, tokened):  # noqa: F811
    from playwright.sync_api import expect

    user, old = tokened
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    _sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/me/token/")
    page.get_by_role("button", name="Make a new token").click()
    expect(page.locator(".messages")).to_contain_text("Your new token is below")
    assert Token.objects.get(user=user).key != old
    context.close()
