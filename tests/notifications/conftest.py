import pytest

from tests.accounts.world import build_world


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    """tests/accounts/world.py, published with its start lists sent (``mail.outbox``)."""
    return build_world(django_capture_on_commit_callbacks)
