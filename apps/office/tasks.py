"""Celery tasks of the draw job and of the publication: thin wrappers around ``draw.py`` and
``publication.py``.

``run_draw`` divides the stage and fans out one ``draw_groups`` task per batch of groups (up
to ``draw.GROUPS_PER_TASK``); the task that completes the last group runs ``finish_draw``.
Every step is idempotent, tasks are acknowledged only after they ran (a killed worker's task
is delivered again), and database hiccups are retried; a step that still fails marks the job
failed. The sweep ``resume_stalled_draws`` queues again what was lost. Swiss play and the
format lab have their tasks in their rooms (``swiss/tasks.py``, ``lab/tasks.py``).
"""

from __future__ import annotations

from celery import shared_task

from apps.core.tasks import STEP

from . import draw, publication


def _draw_step_failed(task, exc, task_id, args, kwargs, einfo) -> None:
    """``on_failure`` of a draw step (whose first argument is the job's id): once the retries
    are spent (or the error is not one to retry) the job would show "drawing" for ever;
    nothing was written, and the organizer can start it again."""
    draw.fail(args[0], f"The draw stopped on an error ({exc}); start it again.")


# The app's own task class stays the base (a broker that is away never fails the request
# that starts a draw: config/celery.py); the failure hook is a method of it. A step the broker
# did not take is kept by its job, which the sweep resumes (resume_stalled_draws).
DRAW_STEP = {**STEP, "on_failure": _draw_step_failed}


@shared_task(**DRAW_STEP)
def run_draw(job_id: int) -> int:
    numbers = draw.prepare(job_id)
    for batch in draw.batches(numbers):
        draw_groups.delay(job_id, batch)
    if not numbers:
        finish_draw.delay(job_id)
    return len(numbers)


@shared_task(**DRAW_STEP)
def draw_groups(job_id: int, numbers: list[int]) -> None:
    if draw.draw_groups(job_id, numbers):
        finish_draw.delay(job_id)


@shared_task(**DRAW_STEP)
def draw_group(job_id: int, number: int) -> None:
    """One group: the task of earlier versions, kept for the messages they left queued."""
    if draw.draw_one_group(job_id, number):
        finish_draw.delay(job_id)


@shared_task(**DRAW_STEP)
def finish_draw(job_id: int) -> bool:
    return draw.finish(job_id)


@shared_task(outbox=False, acks_late=True)
def resume_stalled_draws() -> dict[str, int]:
    """Every minute (beat): queue the remaining steps of draw jobs that should have finished,
    and stop those past the time limit (see ``draw.stalled_jobs``)."""
    resume, late = draw.stalled_jobs()
    for job_id in resume:
        run_draw.delay(job_id)
    return {"resumed": len(resume), "stopped": len(late)}


# A step without a failure hook (no job to mark failed), not kept by the outbox: not needed to
# serve the files, the first request builds a missing one.
@shared_task(**STEP)
def store_published_files(stage_id: int) -> int:
    """After a publication: build and store the stage's verification files once
    (``publication.store_files``; idempotent, so a retried or repeated task stores nothing
    twice)."""
    return publication.store_files(stage_id)
