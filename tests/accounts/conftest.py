import pytest

from tests.worlds.published import build_world


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


@pytest.fixture
def as_role(client, world):
    """``as_role(role)``: the test client signed in as that role's user (anonymous: none)."""

    def signed_in(role: str):
        client.logout()
        user = world.users[role]
        if user is not None:
            client.force_login(user)
        return client

    return signed_in
