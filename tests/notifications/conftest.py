import pytest

from tests.worlds.published import build_world


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    """tests/worlds/published.py, published with its start lists sent (``mail.outbox``)."""
    return build_world(django_capture_on_commit_callbacks)
