"""The end of play on PostgreSQL with a real worker: beat's deadline tasks, sent twice (two
beats, or a redelivery), remind each player once and send the open games to adjudication
once."""

from datetime import timedelta

import pytest
from django.db.models import Count
from django.utils import timezone

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.notifications.models import Kind, SentNotification
from apps.notifications.tasks import send_deadline_reminders
from apps.office.services import publish_draw, start_draw
from apps.results.tasks import adjudicate_due_stages
from apps.stages.models import Stage
from tests.worlds.worker import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import closed_stage, finished, wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

REMINDER = "apps.notifications.tasks.send_deadline_reminder"
ADJUDICATE = "apps.results.tasks.adjudicate_due_stages"


def _play_ends_in(stage: Stage, days: int) -> None:
    Stage.objects.filter(pk=stage.pk).update(
        play_ends_on=timezone.localdate() + timedelta(days=days)
    )


def test_the_deadline_tasks_sent_twice_remind_and_adjudicate_once(
    organizer, start_worker, monkeypatch
):
    # The synthetic players' addresses are at example.org: reminders go to them here, into
    # the worker's memory (the record of each e-mail sent is what this test reads).
    monkeypatch.setenv("NOTIFICATIONS_SKIP_DOMAINS", "")
    monkeypatch.setenv("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")
    stage = closed_stage(organizer, 300)
    worker = start_worker()
    job = finished(start_draw(organizer, stage, "deadline seed"), worker.output)
    assert job.status == job.Status.SUCCEEDED, job.error
    stage = publish_draw(organizer, stage)
    groups = stage.groups.count()

    _play_ends_in(stage, 3)
    send_deadline_reminders.delay()
    send_deadline_reminders.delay()
    wait_until(
        "both runs remind every group",
        lambda: worker.executed().get(REMINDER, 0) >= 2 * groups,
        explain=worker.output,
    )
    reminders = SentNotification.objects.filter(kind=Kind.DEADLINE)
    # One per player (every one has open games). The two runs race on each reminder's unique
    # record; the loser retries (a task counted above), so the last ones may still be on
    # their way.
    wait_until("every player is reminded", lambda: reminders.count() == 300, explain=worker.output)
    assert not reminders.values("key", "recipient").annotate(n=Count("id")).filter(n__gt=1)

    _play_ends_in(stage, -1)
    adjudicate_due_stages.delay()
    adjudicate_due_stages.delay()
    wait_until(
        "both runs ran",
        lambda: worker.ran(ADJUDICATE, 2),
        explain=worker.output,
    )
    stage.refresh_from_db()
    assert stage.adjudication_requested_at is not None
    events = AuditEvent.objects.filter(action=Action.STAGE_SENT_TO_ADJUDICATION, stage_id=stage.pk)
    assert events.count() == 1
    assert events.get().actor is None and events.get().data["automatic"] is True
