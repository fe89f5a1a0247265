"""Links that work: e-mailed links start with SITE_URL when it is set, else with the address
(scheme, host and port) the site was last reached on; http://127.0.0.1:8000 before any
request came in."""

import re

import pytest
from django.core import mail

from apps.core.site import FALLBACK_SITE_URL, SITE_URL_CACHE_KEY, absolute_url, site_url
from apps.notifications import delivery
from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db

LINK = re.compile(r"(https?://[^/\s]+)/accounts/invitation/[^/\s]+/")


def _invite_through_the_page(world, client, capture, **request):
    client.force_login(world.users["organizer"])
    with capture(execute=True):
        answer = client.post(
            f"/t/{world.tournament.slug}/invitations/",
            {"email": "newtd@people.test", "role": "td", "stage": world.stage.pk, "group": 2},
            **request,
        )
    assert answer.status_code == 302
    [message] = [m for m in mail.outbox if m.to == ["newtd@people.test"]]
    return LINK.search(message.body).group(1)


def test_an_email_queued_by_a_request_links_to_that_host_and_port(
    world, client, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = ""
    mail.outbox.clear()
    site = _invite_through_the_page(
        world, client, django_capture_on_commit_callbacks, SERVER_PORT="18100"
    )
    assert site == "http://testserver:18100"
    assert delivery.absolute_url("/me/") == "http://testserver:18100/me/"


def test_the_host_header_names_the_address(
    world, client, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = ""
    mail.outbox.clear()
    site = _invite_through_the_page(
        world, client, django_capture_on_commit_callbacks, HTTP_HOST="localhost:18100"
    )
    assert site == "http://localhost:18100"


def test_site_url_wins_when_it_is_set(world, client, settings, django_capture_on_commit_callbacks):
    settings.SITE_URL = "https://chess.example.net/"
    mail.outbox.clear()
    site = _invite_through_the_page(
        world, client, django_capture_on_commit_callbacks, HTTP_HOST="testserver:18100"
    )
    assert site == "https://chess.example.net"


def test_before_any_request_links_use_the_local_default(settings):
    from django.core.cache import cache

    settings.SITE_URL = ""
    cache.delete(SITE_URL_CACHE_KEY)
    assert site_url() == FALLBACK_SITE_URL == "http://127.0.0.1:8000"
    assert absolute_url("/me/") == "http://127.0.0.1:8000/me/"


def test_a_host_that_is_not_allowed_is_not_remembered(client, settings):
    from django.core.cache import cache

    settings.SITE_URL = ""
    cache.delete(SITE_URL_CACHE_KEY)
    client.get("/", HTTP_HOST="evil.example.com")
    assert site_url() == FALLBACK_SITE_URL
    client.get("/", HTTP_HOST="localhost:9000", **{"wsgi.url_scheme": "https"})
    assert site_url() == "https://localhost:9000"
