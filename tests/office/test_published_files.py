"""A publication's verification files are written once, so they have no freshness mark; the
task that stores them is healed by the outbox instead: kept when the broker does not take
it, and sent by the outbox's sweep once the broker is back."""

from __future__ import annotations

import pytest
from celery import Task as CeleryTask
from kombu.exceptions import OperationalError

from apps.core.models import UnsentTask
from apps.core.tasks import send_unsent_tasks
from apps.groups.models import PublishedFile
from apps.office.publication import publication_progress
from apps.office.services import publish_draw
from apps.office.tasks import store_published_files
from apps.stages.models import Stage
from apps.standings.tasks import sweep_stale_standings
from config.celery import app, forget_broker_failures
from tests.conftest import tasks_in_process
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_files_task_the_broker_did_not_take_is_kept_and_sent_by_the_outbox_sweep(
    published_stage, monkeypatch
):
    PublishedFile.objects.filter(stage=published_stage).delete()  # as if never run
    with monkeypatch.context() as away:

        def refuse(task, args=None, kwargs=None, *more, **options):
            raise OperationalError("connection refused")

        away.setitem(app.conf, "task_always_eager", False)
        away.setattr(CeleryTask, "apply_async", refuse)
        forget_broker_failures()
        store_published_files.delay(published_stage.pk)  # does not raise
    forget_broker_failures()
    kept = list(UnsentTask.objects.values_list("task", "args"))
    assert kept == [(store_published_files.name, [published_stage.pk])]
    assert not publication_progress(published_stage).files.finished

    assert send_unsent_tasks() == 1  # the broker is back (here: tasks run in this process)
    assert not UnsentTask.objects.exists()
    assert publication_progress(published_stage).files.finished


def test_publishing_while_the_broker_is_down_stores_the_files_once_it_is_back(
    organizer, drawn_stage, unreachable_broker, settings
):
    """Issue 26, item 5: the publication's request answers while Redis is away (a closed
    port), every task whose loss would leave the publication unfinished is kept (the files'
    task in the outbox; the standings by their marks), and once the broker is back the
    outbox's sweep sends the files' task and the publication completes."""
    stage = publish_draw(organizer, drawn_stage)
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PUBLISHED
    kept = set(UnsentTask.objects.values_list("task", flat=True))
    assert store_published_files.name in kept
    assert not PublishedFile.objects.filter(stage=stage).exists()
    assert not publication_progress(stage).files.finished

    # The broker is back (here: the tasks it would take run in this process).
    settings.STANDINGS_STALE_SECONDS = 0  # the standings' sweep heals at once
    with tasks_in_process():
        forget_broker_failures()
        assert send_unsent_tasks() == len(kept)
        sweep_stale_standings()
    assert not UnsentTask.objects.exists()
    progress = publication_progress(stage)
    assert progress.files.finished
    assert progress.finished
