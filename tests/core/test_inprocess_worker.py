"""The in-process worker (config/inprocess.py): without a broker, a web process runs the
tasks in the background, one at a time, and the request that sent one returns at once.

Every other test runs its tasks eagerly (nothing starts the worker but config/wsgi.py). These
start their own worker; a task that waits on an event keeps the worker busy, so "the request
returned before the job ran" is checked without timing anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest
from django.urls import reverse

from apps.entrants.services import close_registration
from apps.stages.models import DrawJob, Stage
from config import inprocess
from config.celery import app
from config.inprocess import InProcessWorker
from tests.worlds.pages import *  # noqa: F403

RAN: list[str] = []
GATE = threading.Event()


@app.task(name="tests.core.inprocess.wait_for_gate")
def wait_for_gate() -> None:
    """Keeps the worker busy until the test opens the gate (run inline by mistake, it gives
    up after a while and says so, so the test fails instead of hanging)."""
    RAN.append("gate" if GATE.wait(timeout=120) else "the gate never opened")


@app.task(name="tests.core.inprocess.note")
def note(word: str) -> None:
    RAN.append(word)


@app.task(name="tests.core.inprocess.note_then_send")
def note_then_send(word: str) -> None:
    """Sends another task: it is queued behind this one, not run inside it."""
    note.delay(f"{word}: sent")
    RAN.append(word)


@app.task(name="tests.core.inprocess.fail")
def fail() -> None:
    raise RuntimeError("this task fails")


@pytest.fixture
def worker() -> Iterator[InProcessWorker]:
    RAN.clear()
    GATE.clear()
    started = InProcessWorker(app, beat=False)
    previous = inprocess.install(started)
    started.start()
    try:
        yield started
    finally:
        GATE.set()
        started.stop()
        inprocess.install(previous)


def test_a_sent_task_returns_at_once_and_runs_in_the_background(worker):
    wait_for_gate.delay()
    note.delay("after the gate")

    # Both calls returned while the first task still waits: nothing has run.
    assert RAN == []
    assert worker.running

    GATE.set()
    worker.join()
    assert RAN == ["gate", "after the gate"]


def test_a_task_sent_by_a_task_runs_after_it_on_the_same_thread(worker):
    note_then_send.delay("first")
    worker.join()
    assert RAN == ["first", "first: sent"]


def test_a_failing_task_is_logged_and_the_next_one_runs(worker, caplog):
    with caplog.at_level(logging.ERROR, logger="config.inprocess"):
        fail.delay()
        note.delay("next")
        worker.join()
    assert RAN == ["next"]
    assert "this task fails" in caplog.text


def test_without_a_running_worker_tasks_run_inside_the_caller():
    RAN.clear()
    assert inprocess.current() is None
    note.delay("eager")
    assert RAN == ["eager"]


def test_beat_sends_a_due_periodic_task_once_while_it_waits(settings):
    """The thread's beat queues what is due, and not again while that one still waits."""
    RAN.clear()
    GATE.clear()
    schedule = {"noted": {"task": "tests.core.inprocess.note", "schedule": 0.0}}
    saved = app.conf.beat_schedule
    app.conf.beat_schedule = schedule
    beat = InProcessWorker(app)
    try:
        beat._periodic = beat._schedule()
        periodic = beat._periodic[0]
        beat._send_due()
        beat._send_due()
        assert beat._queue.qsize() == 1 and periodic.waiting
    finally:
        app.conf.beat_schedule = saved


@pytest.mark.django_db(transaction=True)
def test_the_draw_page_returns_before_the_draw_and_the_job_completes_in_the_background(
    worker, organizer_client, organizer, registered_stage
):
    stage = close_registration(organizer, registered_stage)
    wait_for_gate.delay()  # the worker is busy: the draw's task has to wait its turn

    response = organizer_client.post(
        reverse("stage-draw", args=[stage.tournament.slug, stage.order]), {"seed": "bg"}
    )

    assert response.status_code == 302
    job = DrawJob.objects.get(stage=stage)
    assert response["Location"].endswith(
        reverse("draw-progress", args=[stage.tournament.slug, stage.order, job.pk])
    )
    assert job.status == DrawJob.Status.PENDING
    progress = organizer_client.get(response["Location"]).content.decode()
    assert 'data-finished="false"' in progress

    GATE.set()
    worker.join()
    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    assert 'data-finished="true"' in organizer_client.get(response["Location"]).content.decode()
