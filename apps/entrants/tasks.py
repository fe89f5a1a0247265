"""The Celery task of the entrant import job: a thin wrapper around ``importing.run_import``.

The task is acknowledged only after it ran, and put back on the queue when its worker dies
(``acks_late``, ``reject_on_worker_lost``): running it again reads the file again and imports
it once — a job that finished is left alone, and its outcome is written in the same
transaction as the entrants. Database hiccups are retried; a task that still fails, or runs
past its soft time limit, marks the job failed (``ImportJob.failure_hook``: nothing was
written) so that nobody waits for it.
"""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError
from django.utils.translation import gettext_lazy as _

from . import importing
from .models import ImportJob

MAX_RETRIES = 3


# The stubs' shared_task takes other task options (on_failure) only with base=.
@shared_task(  # type: ignore[call-overload]
    on_failure=ImportJob.failure_hook(
        _("The import stopped on an error; nothing was written. Start the import again.")
    ),
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    max_retries=MAX_RETRIES,
    # Reading and importing 200,000 rows takes well under a minute; a run past these limits
    # is stopped (the soft limit raises in the task, which then fails the job).
    soft_time_limit=600,
    time_limit=660,
)
def run_import(job_id: int) -> str:
    return importing.run_import(job_id)
