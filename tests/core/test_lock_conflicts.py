"""A lock conflict that still happens is answered 503 with a sentence, never 500 (issue 26,
item 4): a deadlock PostgreSQL breaks (psycopg's DeadlockDetected, SQLSTATE 40P01), a lock
timeout (LockNotAvailable, 55P03), SQLite's "database is locked". One handler for the API
(``apps.core.api.exception_handler``), one middleware for pages
(``apps.core.middleware.LockConflictMiddleware``). The actions themselves are made to raise
here; ``tests/office/test_lock_order.py`` races the real ones on PostgreSQL.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError
from psycopg import errors
from rest_framework.test import APIClient

from apps.core.locking import lock_conflict
from apps.stages.services import create_tournament

pytestmark = pytest.mark.django_db


def wrapped(cause: Exception) -> OperationalError:
    """What Django raises for a psycopg error: its own OperationalError, caused by it."""
    error = OperationalError(str(cause))
    error.__cause__ = cause
    return error


CONFLICTS = {
    "deadlock": lambda: wrapped(errors.DeadlockDetected("deadlock detected")),
    "lock-timeout": lambda: wrapped(errors.LockNotAvailable("canceling statement: lock timeout")),
    "sqlite-locked": lambda: OperationalError("database is locked"),
}


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("lock-org", "org@example.org", "pw-123-org")


@pytest.fixture
def cup(organizer):
    return create_tournament(organizer, name="Lock Cup", slug="lock-cup")


def raising(conflict):
    def action(*args, **kwargs):
        raise conflict()

    return action


@pytest.mark.parametrize("kind", list(CONFLICTS))
def test_the_api_answers_a_lock_conflict_503_with_a_sentence(cup, organizer, monkeypatch, kind):
    monkeypatch.setattr("apps.office.api.update_tournament", raising(CONFLICTS[kind]))
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.patch("/api/tournaments/lock-cup/", {"name": "Other"}, format="json")
    assert response.status_code == 503, response.content[:300]
    assert response["Retry-After"] == "2"
    body = response.json()
    assert body["code"] == "busy"
    assert "nothing was changed" in body["message"] and "again" in body["message"]


@pytest.mark.parametrize("kind", list(CONFLICTS))
def test_a_page_answers_a_lock_conflict_503_with_a_sentence(
    client, cup, organizer, monkeypatch, kind
):
    monkeypatch.setattr("apps.stages.services.update_tournament", raising(CONFLICTS[kind]))
    client.force_login(organizer)
    page = client.get("/t/lock-cup/settings/")
    data = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    data["name"] = "Other"
    response = client.post("/t/lock-cup/settings/", data)
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert "nothing was changed" in response.content.decode()


def test_other_database_errors_are_still_server_errors():
    assert not lock_conflict(OperationalError("no such table: x"))
    assert not lock_conflict(wrapped(errors.UndefinedTable("no such table")))
    assert not lock_conflict(ValueError("database is locked"))
    assert all(lock_conflict(make()) for make in CONFLICTS.values())
