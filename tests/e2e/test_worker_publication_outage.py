"""Publishing while Redis is down (issue 26, item 5), with a real worker and beat on
PostgreSQL and Redis: the publication answers, the verification files' task waits in the
outbox, and once Redis is back beat's outbox sweep sends it, the worker stores the files and
the publication completes. (The probe saw "In progress" for nine minutes and more: the task
was lost.)"""

from __future__ import annotations

import time

import pytest

from apps.core.models import UnsentTask
from apps.groups.models import PublishedFile
from apps.office.publication import FILES, publication_progress
from apps.office.services import publish_draw
from apps.stages.models import Stage
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

FILES_TASK = "apps.office.tasks.store_published_files"
HEAL = 30  # seconds: beat sweeps the outbox every second here, the standings every second


def test_publishing_while_redis_is_down_completes_once_it_is_back(
    organizer,  # noqa: F811
    drawn_stage,
    broker,  # noqa: F811
    unreachable_broker,  # noqa: F811
    quick_sweep,  # noqa: F811
    start_worker,  # noqa: F811
    start_beat,  # noqa: F811
):
    started = time.monotonic()
    stage = publish_draw(organizer, drawn_stage)
    assert time.monotonic() - started < 5  # the broker's absence costs about a second
    assert FILES_TASK in set(UnsentTask.objects.values_list("task", flat=True))
    assert not PublishedFile.objects.filter(stage=stage).exists()

    unreachable_broker(False)  # Redis is back
    worker = start_worker()
    beat = start_beat()

    def explain() -> str:
        return f"{worker.output()}\n{beat.output()}"

    def complete() -> bool:
        progress = publication_progress(Stage.objects.get(pk=stage.pk))
        return progress is not None and progress.finished

    wait_until("the publication completes", complete, timeout=HEAL, explain=explain)
    assert worker.executed().get(FILES_TASK, 0) >= 1
    assert PublishedFile.objects.filter(stage=stage).count() == len(FILES)
    assert not UnsentTask.objects.exists()
