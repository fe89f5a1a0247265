"""Celery tasks of the results app: thin wrappers around ``closing``, ``reports``,
``emails`` and ``import_jobs`` (each may run again: the services change nothing twice and
send each e-mail once).
"""

from __future__ import annotations

from datetime import date

from celery import shared_task
from django.utils.translation import gettext_lazy as _

from apps.core.tasks import RETRY as STEP_RETRY
from apps.notifications.delivery import send_all
from apps.notifications.tasks import RETRY

from . import closing, emails, reports
from .models import ResultImportJob

# A results import's run: reading a file as big as the body limit lets in (21 MB, 250,000
# PGN games) and applying it takes minutes. These limits stay below Redis's visibility
# timeout (tests/core/test_task_limits.py); a run past the soft one fails the job.
IMPORT_SOFT_TIME_LIMIT = 17 * 60
IMPORT_TIME_LIMIT = IMPORT_SOFT_TIME_LIMIT + 60


@shared_task(**RETRY)
def adjudicate_due_stages(day: str | None = None) -> list[int]:
    """Send the open games of every stage whose play ended before ``day`` (ISO date; default
    today) to adjudication. Celery beat runs this every night; a second run does nothing."""
    return closing.adjudicate_due_stages(date.fromisoformat(day) if day else None)


@shared_task(**RETRY)
def accept_due_reports() -> list[int]:
    """Reported results nobody answered in time stand (Celery beat runs this hourly)."""
    return reports.accept_due_reports()


@shared_task(**RETRY)
def result_reported(report_id: int) -> int:
    """E-mail the opponent of a new report."""
    return send_all(emails.report_messages(report_id))


@shared_task(**RETRY)
def report_disputed(report_id: int) -> int:
    """E-mail the reporter and the group's TD of a dispute."""
    return send_all(emails.dispute_messages(report_id))


# Acknowledged after it ran and handed back when its worker dies (RETRY); not kept by the
# outbox: the job is, and its sweep (resume_stalled_result_imports) queues it again. A task
# that fails for good, or passes its soft time limit, fails the job (nothing was written).
# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(  # type: ignore[call-overload]
    **STEP_RETRY,
    outbox=False,
    soft_time_limit=IMPORT_SOFT_TIME_LIMIT,
    time_limit=IMPORT_TIME_LIMIT,
    on_failure=ResultImportJob.failure_hook(
        _("The results import stopped on an error; nothing was written. Start it again.")
    ),
)
def run_result_import(job_id: int) -> str:
    """Run a results import job (``import_jobs.run_import``): a job finished already is
    left as it is, so a task delivered twice imports the file once."""
    from . import import_jobs

    return import_jobs.run_import(job_id)


# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(outbox=False, acks_late=True)  # type: ignore[call-overload]
def resume_stalled_result_imports() -> dict[str, int]:
    """Every minute (beat): queue again the results import jobs whose task was lost, stop
    those past their time limit (``apps.core.jobs``)."""
    return ResultImportJob.resume_stalled(run_result_import)
