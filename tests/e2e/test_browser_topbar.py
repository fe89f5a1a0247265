"""The signed-in top bar on a 360 px phone (issue 27: "Sign out" was cut off): every link
and the sign-out button stay inside the screen, the bar wraps instead of overflowing.
Screenshots at 360 and 1280 px are saved for people to look at."""

import pytest
from django.contrib.auth import get_user_model

from apps.core.services import set_display_name
from tests.e2e.conftest import submit_sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-topbar-123"
SHOT = "/tmp/closed-circle-topbar-{}.png"  # looked at by people, not compared


@pytest.mark.parametrize("width", [360, 1280])
def test_the_signed_in_top_bar_fits_the_screen(live_server, browser, width):
    from playwright.sync_api import expect

    staff = get_user_model().objects.create_superuser("topbar", "t@example.org", PASSWORD)
    # the longest bar: a staff account (Organizers, Admin) with a long display name
    set_display_name(staff, "Maria Giovanna Bianchi-Fontanarosa della Valle")
    page = browser.new_context(viewport={"width": width, "height": 740}).new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "topbar")
    page.fill("#id_password", PASSWORD)
    submit_sign_in(page)

    sign_out = page.get_by_role("button", name="Sign out")
    expect(sign_out).to_be_visible()
    for item in [sign_out, *page.locator(".topbar-nav a").all()]:
        box = item.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= width
    page.screenshot(path=SHOT.format(width))
