"""The first sign-in of an account with no name to show others asks for one (issue 27: the
account createsuperuser makes was "Organizer 1" everywhere, its TD invitations included)."""

from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from apps.core.people import display_name
from apps.core.services import set_display_name

pytestmark = pytest.mark.django_db

PASSWORD = "pw-first-123"


@pytest.fixture
def boss(db):
    return get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)


def sign_in(client, **extra):
    return client.post(reverse("login"), {"username": "boss", "password": PASSWORD, **extra})


def test_the_first_sign_in_without_a_name_asks_for_one_and_then_goes_on(client, boss):
    assert display_name(boss) == f"Organizer {boss.pk}"
    answer = sign_in(client, next="/staff/organizers/")
    asked = f"{reverse('me-name')}?{urlencode({'next': '/staff/organizers/', 'first': 1})}"
    assert answer.status_code == 302 and answer["Location"] == asked

    page = client.get(asked).content.decode()
    assert 'id="first-name"' in page
    assert 'name="next" value="/staff/organizers/"' in page
    assert ">Later</a>" in page and 'href="/staff/organizers/"' in page

    saved = client.post(
        reverse("me-name"), {"display_name": "Anna Rossi", "next": "/staff/organizers/"}
    )
    assert saved.status_code == 302 and saved["Location"] == "/staff/organizers/"
    boss.refresh_from_db()
    assert display_name(boss) == "Anna Rossi"


def test_without_next_the_first_sign_in_goes_home_after_the_name(client, boss):
    answer = sign_in(client)
    assert answer["Location"] == f"{reverse('me-name')}?{urlencode({'next': '/', 'first': 1})}"
    saved = client.post(reverse("me-name"), {"display_name": "Anna", "next": "/"})
    assert saved["Location"] == "/"


def test_a_later_sign_in_is_not_asked_again(client, boss):
    sign_in(client)
    client.post(reverse("logout"))
    answer = sign_in(client, next="/me/")
    assert answer.status_code == 302 and answer["Location"] == "/me/"


@pytest.mark.parametrize("named", ["display", "full"])
def test_an_account_with_a_name_is_not_asked(client, boss, named):
    if named == "display":
        set_display_name(boss, "Anna")
    else:
        boss.first_name, boss.last_name = "Anna", "Rossi"
        boss.save()
    answer = sign_in(client, next="/me/")
    assert answer["Location"] == "/me/"


def test_the_name_page_never_sends_one_to_another_site(client, boss):
    client.force_login(boss)
    saved = client.post(
        reverse("me-name"), {"display_name": "Anna", "next": "https://evil.example/"}
    )
    assert saved.status_code == 302 and saved["Location"] == reverse("me")
    page = client.get(reverse("me-name"), {"next": "https://evil.example/", "first": 1})
    html = page.content.decode()
    assert 'href="https://evil.example/"' not in html
    assert 'value="https://evil.example/"' not in html
