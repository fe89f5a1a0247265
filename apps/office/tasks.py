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
from apps.stages.models import DrawJob

from . import draw, publication

# The app's own task class stays the base (a broker that is away never fails the request
# that starts a draw: config/celery.py); the failure hook is a method of it. A step that failed
# for good would leave the job "drawing" until its time limit; nothing was written, and the
# organizer can start it again. A step the broker did not take is kept by its job, which the
# sweep resumes (resume_stalled_draws), not by the outbox of apps/core/outbox.py.
DRAW_STEP = {
    **STEP,
    "on_failure": DrawJob.failure_hook("The draw stopped on an error (%(error)s); start it again."),
}


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


# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(outbox=False, acks_late=True)  # type: ignore[call-overload]
def resume_stalled_draws() -> dict[str, int]:
    """Every minute (beat): queue the remaining steps of draw jobs not heard from for
    ``DrawJob.RESUME_AFTER``, and stop those past the time limit (``Job.stalled``)."""
    return DrawJob.resume_stalled(run_draw)


# A step without a failure hook (no job to mark failed), kept in the outbox when the broker
# does not take it (apps/core/outbox.py): its sweep sends it later, so the publication's
# progress still completes (see publication.py).
@shared_task(**{k: v for k, v in STEP.items() if k != "outbox"})
def store_published_files(stage_id: int) -> int:
    """After a publication: build and store the stage's verification files once
    (``publication.store_files``; idempotent, so a retried or repeated task stores nothing
    twice)."""
    return publication.store_files(stage_id)
