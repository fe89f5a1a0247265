"""Fixtures of the people tests: the small published world of tests/accounts (two groups of
twelve, a TD for each, a player, an organizer and a staff user), and clients signed in."""

import pytest
from rest_framework.test import APIClient

from tests.worlds.published import build_world


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


@pytest.fixture
def web(client):
    """``web(user)``: the test client signed in as ``user`` (None: signed out)."""

    def signed_in(user=None):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client

    return signed_in


@pytest.fixture
def api():
    """``api(user)``: an API client authenticated as ``user`` (None: the public)."""

    def client_for(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return client_for
