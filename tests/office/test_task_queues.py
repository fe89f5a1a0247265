"""Format lab runs on a queue of their own (issue 26, item 7): a run's parts are sent to the
``lab`` queue, and everything interactive (a standings recompute, a Swiss pairing, the
draw's steps) to the default queue ``celery``, so a recompute never waits behind a run."""

from collections.abc import Iterator

import pytest
from celery.signals import before_task_publish
from django.conf import settings

from apps.office.lab.tasks import resume_stalled_lab_runs, run_lab
from apps.office.swiss.tasks import pair_swiss_round
from apps.office.tasks import run_draw, store_published_files
from apps.standings.tasks import rebuild_stage_ranking, recompute_group_standings
from config.celery import app


@pytest.fixture
def sent() -> Iterator[dict[str, str]]:
    """Tasks are published to an in-memory broker instead of running here: task name → the
    queue (routing key) it was published to."""
    queues: dict[str, str] = {}

    def seen(sender=None, headers=None, routing_key=None, **kwargs):
        queues[headers["task"]] = routing_key

    conf = app.conf
    saved = conf.task_always_eager, conf.broker_url
    conf.task_always_eager = False
    conf.broker_url = "memory://"
    app._pool = None
    before_task_publish.connect(seen, weak=False)
    try:
        yield queues
    finally:
        before_task_publish.disconnect(seen)
        conf.task_always_eager, conf.broker_url = saved
        app._pool = None


def test_lab_runs_go_to_the_lab_queue_and_interactive_work_to_the_default(sent):
    run_lab.delay(1)
    recompute_group_standings.delay(1)
    rebuild_stage_ranking.delay(1)
    pair_swiss_round.delay(1, 2, None)
    run_draw.delay(1)
    store_published_files.delay(1)
    resume_stalled_lab_runs.delay()  # the sweep is light: it only queues runs again
    assert settings.LAB_QUEUE == "lab"
    assert sent.pop(run_lab.name) == "lab"
    assert set(sent.values()) == {"celery"}, sent
    assert len(sent) == 6
