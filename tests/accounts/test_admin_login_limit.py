"""The admin's login page counts attempts like the site's sign-in: past the limit even the
right password is refused (429) until the wait is over."""

import pytest
from django.contrib.auth import get_user_model

from config.settings import REST_FRAMEWORK


@pytest.mark.django_db
def test_the_admin_login_is_rate_limited(client):
    get_user_model().objects.create_superuser("root", "root@example.org", "right-password-1")
    limit = int(REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["sign_in"].split("/")[0])
    for _ in range(limit):
        wrong = client.post(
            "/admin/login/", {"username": "root", "password": "wrong", "next": "/admin/"}
        )
        assert wrong.status_code == 200  # the form again, with its error
    right = client.post(
        "/admin/login/", {"username": "root", "password": "right-password-1", "next": "/admin/"}
    )
    assert right.status_code == 429 and "Too many attempts" in right.content.decode()
    assert "Retry-After" in right.headers
    assert client.get("/admin/").status_code == 302  # not signed in
