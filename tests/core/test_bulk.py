"""Writing and changing many rows at once (apps/core/bulk.py), on the database the tests run
on: COPY (and for updates a temporary table joined by UPDATE) on PostgreSQL, batched
statements elsewhere. Each function must leave the rows as saving the models one by one
would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.core import bulk
from apps.core.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["statement a row", "copied"])
def update_path(request, monkeypatch):
    """update_rows's two ways on PostgreSQL: a statement a row for a few rows, COPY into a
    temporary table for more (here for any). Elsewhere both are a statement a row."""
    if request.param == "copied":
        monkeypatch.setattr(bulk, "COPY_ABOVE", 0)
    return request.param


# JSON that COPY's text format must carry as it is: quotes, backslashes, tabs, new lines,
# letters outside ASCII and the plane.
AWKWARD = {"text": 'a "quoted"\tword\\n\nnew line, é, 𝄞', "list": [1, 2.5, None, True], "n": {}}


def events(count: int) -> list[AuditEvent]:
    return [
        AuditEvent.objects.create(action=f"test.{i}", game_id=i, data={"i": i})
        for i in range(count)
    ]


def stored(pk: int) -> tuple:
    return AuditEvent.objects.values_list(
        "action", "actor_id", "game_id", "group_id", "data", "created_at"
    ).get(pk=pk)


def test_update_rows_sets_each_rows_own_values_and_leaves_the_others_alone(update_path):
    rows = events(5)
    user = get_user_model().objects.create_user("bulk")
    when = datetime(2025, 5, 1, 12, 30, tzinfo=UTC)
    untouched = [stored(e.pk) for e in rows]
    with CaptureQueriesContext(connection) as queries:
        changed = bulk.update_rows(
            AuditEvent,
            ("action", "actor_id", "game_id", "data", "created_at"),
            [
                (rows[0].pk, "test.first", user.pk, None, AWKWARD, when),
                (rows[2].pk, "test.third", None, 42, [1, "two"], when + timedelta(days=1)),
                (rows[4].pk, "test.fifth", user.pk, 7, "a string", when - timedelta(hours=1)),
            ],
        )
    assert changed == 3
    copied = any(q["sql"].startswith("COPY") for q in queries.captured_queries)
    assert copied == (connection.vendor == "postgresql" and update_path == "copied")
    assert stored(rows[0].pk) == ("test.first", user.pk, None, None, AWKWARD, when)
    third = ("test.third", None, 42, None, [1, "two"], when + timedelta(days=1))
    assert stored(rows[2].pk) == third
    fifth = ("test.fifth", user.pk, 7, None, "a string", when - timedelta(hours=1))
    assert stored(rows[4].pk) == fifth
    assert [stored(rows[i].pk) for i in (1, 3)] == [untouched[1], untouched[3]]


def test_update_rows_twice_in_one_transaction_and_with_no_rows(update_path):
    rows = events(3)
    with transaction.atomic():
        assert bulk.update_rows(AuditEvent, ("game_id",), ((e.pk, 100 + e.pk) for e in rows)) == 3
        assert bulk.update_rows(AuditEvent, ("action",), [(rows[1].pk, "test.again")]) == 1
        assert bulk.update_rows(AuditEvent, ("action",), []) == 0
    found = dict(AuditEvent.objects.values_list("pk", "game_id"))
    assert found == {e.pk: 100 + e.pk for e in rows}
    assert AuditEvent.objects.get(pk=rows[1].pk).action == "test.again"


def test_update_rows_more_rows_than_a_batch(update_path, monkeypatch):
    monkeypatch.setattr(bulk, "BATCH", 2)
    rows = events(5)
    assert bulk.update_rows(AuditEvent, ("game_id",), [(e.pk, -e.pk) for e in rows]) == 5
    assert dict(AuditEvent.objects.values_list("pk", "game_id")) == {e.pk: -e.pk for e in rows}


def test_update_rows_refused_by_the_table_changes_nothing(update_path):
    rows = events(2)
    with pytest.raises(IntegrityError), transaction.atomic():
        bulk.update_rows(AuditEvent, ("action",), [(rows[0].pk, "test.fine"), (rows[1].pk, None)])
    assert [e.action for e in AuditEvent.objects.order_by("pk")] == ["test.0", "test.1"]


@pytest.mark.django_db(transaction=True)
def test_update_rows_outside_a_transaction(update_path):
    (row,) = events(1)
    assert connection.get_autocommit() and not connection.in_atomic_block
    assert bulk.update_rows(AuditEvent, ("action",), [(row.pk, "test.alone")]) == 1
    assert AuditEvent.objects.get(pk=row.pk).action == "test.alone"


def test_insert_rows_stores_json_as_saving_the_model_does():
    values = [AWKWARD, [1, "two", {"three": 3}], "a string", 3, True, {}]
    saved = [AuditEvent.objects.create(action="test.saved", data=v).pk for v in values]
    bulk.insert_rows(AuditEvent, ("action", "data"), [("test.bulk", v) for v in values])
    copied = AuditEvent.objects.filter(action="test.bulk").order_by("pk")
    assert [e.data for e in copied] == values
    assert [e.data for e in copied] == [AuditEvent.objects.get(pk=pk).data for pk in saved]
    assert all(e.created_at is not None for e in copied)
