"""Celery tasks of the format lab: thin wrappers around :mod:`.runs`.

``run_lab`` simulates a run part by part, the way the draw's steps run; the sweep
``resume_stalled_lab_runs`` queues again what was lost. Their registered names are those of
the office's tasks module, where they began: queued messages and the beat schedule
(``resume-stalled-lab-runs``) name them so.
"""

from __future__ import annotations

import logging

from celery import shared_task
from kombu.exceptions import OperationalError

from apps.core.tasks import STEP

from ..models import LabRun
from . import runs

logger = logging.getLogger(__name__)


@shared_task(
    name="apps.office.tasks.run_lab",
    # once its retries are spent the run would show "simulating" until its time limit
    on_failure=LabRun.failure_hook("The run stopped on an error (%(error)s); start it again."),
    **STEP,
)
def run_lab(run_id: int) -> bool:
    """Simulate a format lab run about a minute at a time (``runs.advance``), queueing itself
    again until the run has finished; a repeated delivery counts nothing twice."""
    finished = runs.advance(run_id)
    if not finished:
        try:
            run_lab.delay(run_id)
        except OperationalError:  # the broker went away: the sweep queues the run again
            logger.warning("Format lab run %s: the next part was not queued.", run_id)
    return finished


# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(  # type: ignore[call-overload]
    name="apps.office.tasks.resume_stalled_lab_runs", outbox=False, acks_late=True
)
def resume_stalled_lab_runs() -> dict[str, int]:
    """Every minute (beat): queue again the format lab runs whose task was lost, and stop
    those past the time limit (``Job.stalled``)."""
    return LabRun.resume_stalled(run_lab)
