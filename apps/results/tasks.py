"""Celery tasks of the results app: thin wrappers around ``closing``, ``reports`` and
``emails`` (each may run again: the services change nothing twice and send each e-mail once).
"""

from __future__ import annotations

from datetime import date

from celery import shared_task

from apps.notifications.delivery import send_all
from apps.notifications.tasks import RETRY

from . import closing, emails, reports


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
