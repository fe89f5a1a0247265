"""Celery tasks of the draw job: thin wrappers around ``draw.py``.

``run_draw`` divides the stage and fans out one ``draw_groups`` task per batch of groups (up
to ``draw.GROUPS_PER_TASK``); the task that completes the last group runs ``finish_draw``.
Every step is idempotent, tasks are acknowledged only after they ran (a killed worker's task
is delivered again), and database hiccups are retried; a step that still fails marks the job
failed. ``run_lab`` simulates a format lab run part by part (``lab.py``), the same way; the
sweeps ``resume_stalled_draws`` and ``resume_stalled_lab_runs`` queue again what was lost.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import DatabaseError
from kombu.exceptions import OperationalError

from apps.stages.models import DrawJob

from . import draw, lab, publication

logger = logging.getLogger(__name__)


RETRY = {
    # The app's own task class stays the base (a broker that is away never fails the
    # request that starts a draw: config/celery.py); the failure hook is a method of it. A
    # step that failed for good would leave the job "drawing" until its time limit; nothing
    # was written, and the organizer can start it again.
    "on_failure": DrawJob.failure_hook("The draw stopped on an error (%(error)s); start it again."),
    # A step the broker did not take is kept by its job, which the sweep resumes
    # (resume_stalled_draws), not by the outbox of apps/core/outbox.py.
    "outbox": False,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (DatabaseError,),
    "retry_backoff": True,
    "max_retries": 5,
    # One step (the division, a batch of groups, the finish) takes seconds at 100,000 entrants; a
    # step past these limits is stopped, and on_failure marks the job failed.
    "soft_time_limit": 240,
    "time_limit": 300,
}


@shared_task(**RETRY)
def run_draw(job_id: int) -> int:
    numbers = draw.prepare(job_id)
    for batch in draw.batches(numbers):
        draw_groups.delay(job_id, batch)
    if not numbers:
        finish_draw.delay(job_id)
    return len(numbers)


@shared_task(**RETRY)
def draw_groups(job_id: int, numbers: list[int]) -> None:
    if draw.draw_groups(job_id, numbers):
        finish_draw.delay(job_id)


@shared_task(**RETRY)
def draw_group(job_id: int, number: int) -> None:
    """One group: the task of earlier versions, kept for the messages they left queued."""
    if draw.draw_one_group(job_id, number):
        finish_draw.delay(job_id)


@shared_task(**RETRY)
def finish_draw(job_id: int) -> bool:
    return draw.finish(job_id)


@shared_task(outbox=False, acks_late=True)
def resume_stalled_draws() -> dict[str, int]:
    """Every minute (beat): queue the remaining steps of draw jobs not heard from for
    ``DrawJob.RESUME_AFTER``, and stop those past the time limit (``Job.stalled``)."""
    return DrawJob.resume_stalled(run_draw)


# The draw steps' options without their failure hook (no job to mark failed), and kept in
# the outbox when the broker does not take it (apps/core/outbox.py): its sweep sends it
# later, so the publication's progress still completes (see publication.py).
@shared_task(**{k: v for k, v in RETRY.items() if k not in ("on_failure", "outbox")})
def store_published_files(stage_id: int) -> int:
    """After a publication: build and store the stage's verification files once
    (``publication.store_files``; idempotent, so a retried or repeated task stores nothing
    twice)."""
    return publication.store_files(stage_id)


@shared_task(**{k: v for k, v in RETRY.items() if k != "on_failure"})
def pair_swiss_round(stage_id: int, round_number: int, user_id: int | None = None) -> int:
    """Pair round ``round_number`` of a Swiss stage (``swiss.pair_next_round``): a round
    already paired is left as it is, so a repeated or redelivered task writes nothing. A
    round that cannot be paired is recorded (the stage's page and API show why); returns the
    games written."""
    from django.contrib.auth import get_user_model

    from apps.core.errors import ActionError
    from apps.stages.models import Stage

    from . import swiss

    stage = Stage.objects.select_related("tournament").get(pk=stage_id)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    try:
        outcome = swiss.pair_next_round(user, stage, round_number, system=True)
    except ActionError as exc:
        swiss.record_failure(stage_id, round_number, user, exc.message)
        return 0
    return outcome.games if outcome.created else 0


@shared_task(outbox=False, acks_late=True, autoretry_for=(DatabaseError,), max_retries=3)
def swiss_deadlines(now: str | None = None) -> list[int]:
    """Every hour (beat): act on the Swiss rounds whose deadline passed
    (``swiss_deadlines.swiss_deadlines_due``; ``now`` an ISO date-time, default now). A second
    run, or one running alongside, does nothing more; the stages acted on now."""
    from datetime import datetime

    from . import swiss_deadlines as deadlines

    return deadlines.swiss_deadlines_due(datetime.fromisoformat(now) if now else None)


def _lab_failed(task, exc, task_id, args, kwargs, einfo) -> None:
    """``on_failure`` of a lab run's task: the run would show "simulating" for ever."""
    lab.fail(args[0], f"The run stopped on an error ({exc}); start it again.")


@shared_task(
    on_failure=_lab_failed,
    outbox=False,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    max_retries=5,
    soft_time_limit=240,
    time_limit=300,
)
def run_lab(run_id: int) -> bool:
    """Simulate a format lab run about a minute at a time (``lab.advance``), queueing itself
    again until the run has finished; a repeated delivery counts nothing twice."""
    finished = lab.advance(run_id)
    if not finished:
        try:
            run_lab.delay(run_id)
        except OperationalError:  # the broker went away: the sweep queues the run again
            logger.warning("Format lab run %s: the next part was not queued.", run_id)
    return finished


@shared_task(outbox=False, acks_late=True)
def resume_stalled_lab_runs() -> dict[str, int]:
    """Every minute (beat): queue again the format lab runs whose task was lost, and stop
    those past the time limit (see ``lab.stalled_runs``)."""
    resume, late = lab.stalled_runs()
    for run_id in resume:
        run_lab.delay(run_id)
    return {"resumed": len(resume), "stopped": len(late)}
