"""API tokens (obtain with a password, show and regenerate on a page) and rate limits:
signing in (pages and API share one count per address), e-mail requests, and API writes."""

import pytest
from django.core import mail
from rest_framework.authtoken.models import Token

from tests.worlds.published import make_user

PASSWORD = "a-good-password-42"


@pytest.fixture
def rates(settings):
    """Small limits, to reach them in a test."""

    def set_rates(**rates):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {"sign_in": "100/minute", "write": "100/minute", **rates},
        }

    return set_rates


def test_a_user_obtains_a_token_and_uses_it(db, client):
    make_user("tok", PASSWORD)
    answer = client.post(
        "/api/auth/token/",
        {"username": "tok", "password": PASSWORD},
        content_type="application/json",
    )
    assert answer.status_code == 200
    key = answer.json()["token"]
    me = client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {key}")
    assert me.status_code == 200 and me.json()["username"] == "tok"
    again = client.post(
        "/api/auth/token/",
        {"username": "tok", "password": PASSWORD},
        content_type="application/json",
    )
    assert again.json()["token"] == key

    wrong = client.post(
        "/api/auth/token/", {"username": "tok", "password": "nope"}, content_type="application/json"
    )
    assert wrong.status_code == 400 and wrong.json()["code"] == "invalid_input"


def test_the_token_page_shows_and_regenerates_the_token(db, client):
    user = make_user("tokpage")
    client.force_login(user)
    assert "You have no token yet." in client.get("/me/token/").text
    assert client.post("/me/token/").status_code == 302
    first = Token.objects.get(user=user).key
    assert first in client.get("/me/token/").text
    client.post("/me/token/")
    second = Token.objects.get(user=user).key
    assert second != first
    client.logout()
    old = client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {first}")
    assert old.status_code == 403 and old.json()["code"] == "authentication_failed"
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {second}").status_code == 200


def test_sign_in_attempts_are_limited_per_address_on_pages_and_api(db, client, rates):
    rates(sign_in="3/minute")
    make_user("limited", PASSWORD)
    for _ in range(2):
        answer = client.post("/accounts/login/", {"username": "limited", "password": "wrong"})
        assert answer.status_code == 200
    token = client.post(
        "/api/auth/token/",
        {"username": "limited", "password": "wrong"},
        content_type="application/json",
    )
    assert token.status_code == 400  # the third attempt, through the API
    refused = client.post("/accounts/login/", {"username": "limited", "password": PASSWORD})
    assert refused.status_code == 429 and "Too many attempts" in refused.text
    assert not refused.wsgi_request.user.is_authenticated
    api = client.post(
        "/api/auth/token/",
        {"username": "limited", "password": PASSWORD},
        content_type="application/json",
    )
    assert api.status_code == 429 and api.json()["code"] == "throttled"


def test_email_requests_are_limited_like_signing_in(db, client, rates):
    rates(sign_in="1/minute")
    assert client.post("/accounts/password-reset/", {"email": "a@people.test"}).status_code == 302
    assert client.post("/accounts/password-reset/", {"email": "a@people.test"}).status_code == 429
    assert client.post("/accounts/claim/", {"email": "a@people.test"}).status_code == 429
    answer = client.post(
        "/api/auth/claim-links/", {"email": "a@people.test"}, content_type="application/json"
    )
    assert answer.status_code == 429


def test_api_writes_are_limited_per_user_reads_are_not(world, client, rates):
    rates(write="2/minute")
    client.force_login(world.users["player"])
    url = "/api/me/notifications/"
    for _ in range(2):
        assert (
            client.patch(url, {"result": True}, content_type="application/json").status_code == 200
        )
    refused = client.patch(url, {"result": False}, content_type="application/json")
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert client.get(url).json()["result"] is True  # the refused write changed nothing
    for _ in range(5):
        assert client.get("/api/me/").status_code == 200
    client.force_login(world.users["rival"])  # another user has a count of their own
    assert client.patch(url, {"result": False}, content_type="application/json").status_code == 200


def test_password_reset_by_email(db, client):
    user = make_user("forgetful", PASSWORD)
    mail.outbox.clear()
    assert client.post("/accounts/password-reset/", {"email": user.email}).status_code == 302
    [message] = mail.outbox
    link = message.body.split("http://testserver", 1)[1].split()[0]
    form = client.get(link, follow=True)
    assert "Choose a new password" in form.text
    new = "another-pass-77"
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}, follow=True
    )
    assert "Password saved" in done.text
    user.refresh_from_db()
    assert user.check_password(new)
