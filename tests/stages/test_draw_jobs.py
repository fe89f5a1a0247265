"""A stage has one draw job at a time; an organizer can cancel it; a job whose tasks were lost
goes on by itself, and one past its time limit stops."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.office import tasks
from apps.office.services import cancel_draw, start_draw
from apps.stages.models import DrawJob, Stage


@pytest.fixture
def no_worker(never_run):
    """Queued draw steps go nowhere."""
    return never_run(tasks.run_draw)


def test_a_second_draw_while_one_runs_is_refused_and_makes_no_job(
    organizer, closed_stage, no_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, closed_stage, "seed one")
    with pytest.raises(ActionError) as refused:
        start_draw(organizer, closed_stage, "seed two")
    assert refused.value.code == ErrorCode.CONFLICT
    assert "already running" in refused.value.message
    assert DrawJob.objects.filter(stage=closed_stage).count() == 1


def test_cancel_stops_the_job_and_lets_the_draw_start_again(
    organizer, closed_stage, no_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = start_draw(organizer, closed_stage, "seed one")
    cancel_draw(organizer, closed_stage)
    job.refresh_from_db()
    assert job.status == DrawJob.Status.FAILED and "Cancelled" in job.error
    assert AuditEvent.objects.filter(
        action=Action.DRAW_CANCELLED, stage_id=closed_stage.pk
    ).exists()
    # The job's queued steps, run now, change nothing.
    tasks.run_draw(job.pk)
    closed_stage.refresh_from_db()
    assert closed_stage.status == Stage.Status.REGISTRATION_CLOSED
    with pytest.raises(ActionError):
        cancel_draw(organizer, closed_stage)  # nothing runs any more
    start_draw(organizer, closed_stage, "seed two")


def test_a_stalled_job_is_resumed_and_finishes(
    organizer, closed_stage, no_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = start_draw(organizer, closed_stage, "seed one")
    assert no_worker == [job.pk]  # queued, never run: the task was lost
    assert DrawJob.stalled() == ([], [])  # heard from lately
    quiet = timezone.now() - DrawJob.RESUME_AFTER - timedelta(minutes=1)
    DrawJob.objects.filter(pk=job.pk).update(updated_at=quiet)
    assert tasks.resume_stalled_draws() == {"resumed": 1, "stopped": 0}
    assert no_worker == [job.pk, job.pk]
    # Queued again, it counts as heard from: the next sweeps leave it alone for a while.
    assert DrawJob.stalled() == ([], [])
    assert DrawJob.stalled(timezone.now() + DrawJob.RESUME_AFTER * 2) == ([job.pk], [])
    # A worker runs the job queued again.
    no_worker.clear()
    tasks.run_draw.run(job.pk)
    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED


def test_a_job_past_its_time_limit_is_stopped(
    organizer, closed_stage, no_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = start_draw(organizer, closed_stage, "seed one")
    DrawJob.objects.filter(pk=job.pk).update(
        created_at=timezone.now() - DrawJob.TIME_LIMIT - timedelta(minutes=1)
    )
    assert DrawJob.stalled() == ([], [job.pk])
    job.refresh_from_db()
    assert job.status == DrawJob.Status.FAILED and "longer than 30 minutes" in job.error


def test_the_database_holds_one_unfinished_job_per_stage(organizer, closed_stage, no_worker):
    """The action refuses a second draw (409, above); the table does too, whatever raced."""
    job = start_draw(organizer, closed_stage, "seed one")
    with pytest.raises(IntegrityError), transaction.atomic():
        DrawJob.objects.create(stage=closed_stage, seed="raced")
    DrawJob.fail(job.pk, "Cancelled")
    DrawJob.objects.create(stage=closed_stage, seed="after")  # finished jobs do not count
