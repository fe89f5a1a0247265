"""The outbox: a task the broker did not take is kept in the database and sent by the
sweep once the broker answers; tasks whose need is kept elsewhere are not kept twice."""

from __future__ import annotations

import pytest
from celery import Task as CeleryTask
from kombu.exceptions import OperationalError

from apps.core import outbox
from apps.core.models import UnsentTask
from apps.core.tasks import send_unsent_tasks
from apps.notifications.tasks import result_changed
from apps.standings.tasks import recompute_group_standings
from config.celery import app, forget_broker_failures

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_away(monkeypatch):
    """Sending as a web process does (not eager) to a broker that refuses every send."""
    sent: list[tuple[str, tuple]] = []

    def refuse(task, args=None, kwargs=None, *more, **options):
        raise OperationalError("connection refused")

    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setattr(CeleryTask, "apply_async", refuse)
    forget_broker_failures()
    yield sent
    forget_broker_failures()


def test_a_task_the_broker_refuses_is_kept_and_the_sender_carries_on(broker_away):
    result_changed.delay(7, 3)  # does not raise
    result_changed.delay(8, 1)  # the broker is known to be away: not tried, kept too
    kept = list(UnsentTask.objects.values_list("task", "args"))
    assert kept == [(result_changed.name, [7, 3]), (result_changed.name, [8, 1])]


def test_a_task_whose_need_is_kept_elsewhere_is_not_kept_twice(broker_away):
    recompute_group_standings.delay(5)  # the group's mark keeps it
    assert not UnsentTask.objects.exists()


def test_the_sweep_sends_the_kept_tasks_in_order_and_forgets_them(monkeypatch):
    outbox.keep(result_changed.name, [1, 1], {})
    outbox.keep(result_changed.name, [2, 1], {})
    sent: list[list] = []
    monkeypatch.setattr(
        app.tasks[result_changed.name],
        "apply_async",
        lambda args=None, kwargs=None: sent.append(args),
    )
    assert send_unsent_tasks() == 2
    assert sent == [[1, 1], [2, 1]]
    assert not UnsentTask.objects.exists()


def test_a_broker_failing_again_leaves_exactly_the_rows_not_sent(monkeypatch):
    for game in (1, 2, 3):
        outbox.keep(result_changed.name, [game, 1], {})
    sent: list[list] = []

    def second_fails(args=None, kwargs=None):
        if args[0] == 2:
            raise OperationalError("away again")
        sent.append(args)

    monkeypatch.setattr(app.tasks[result_changed.name], "apply_async", second_fails)
    with pytest.raises(OperationalError):
        outbox.send_unsent()
    assert sent == [[1, 1]]
    assert list(UnsentTask.objects.values_list("args", flat=True)) == [[2, 1], [3, 1]]


def test_a_kept_task_that_no_longer_exists_is_dropped():
    outbox.keep("apps.gone.tasks.nothing", [1], {})
    assert outbox.send_unsent() == 0
    assert not UnsentTask.objects.exists()
