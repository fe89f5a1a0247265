"""The Celery task of the entrant import job: a thin wrapper around ``jobs.run_import``.

The task is acknowledged only after it ran, and put back on the queue when its worker dies
(``acks_late``, ``reject_on_worker_lost``): running it again reads the file again and imports
it once — a job that finished is left alone, and its outcome is written in the same
transaction as the entrants. Database hiccups are retried; a task that still fails, or runs
past its time limit, marks the job failed (nothing was written) so that nobody waits for it.
"""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError
from django.utils.translation import gettext as _

from . import jobs

MAX_RETRIES = 3


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    max_retries=MAX_RETRIES,
    # Reading and importing 200,000 rows takes well under a minute; a run past these limits
    # is stopped (the soft limit raises in the task, which marks the job failed).
    soft_time_limit=600,
    time_limit=660,
)
def run_import(self, job_id: int) -> str:
    try:
        return jobs.run_import(job_id)
    except DatabaseError:
        if self.request.retries >= MAX_RETRIES:
            _failed(job_id)
        raise
    except Exception:
        _failed(job_id)
        raise


def _failed(job_id: int) -> None:
    jobs.fail(
        job_id,
        _("The import stopped on an error; nothing was written. Start the import again."),
    )
