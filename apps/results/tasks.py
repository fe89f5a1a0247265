"""Celery tasks of the results app: thin wrappers around ``closing``."""

from __future__ import annotations

from datetime import date

from celery import shared_task

from apps.notifications.tasks import RETRY

from . import closing


@shared_task(**RETRY)
def adjudicate_due_stages(day: str | None = None) -> list[int]:
    """Send the open games of every stage whose play ended before ``day`` (ISO date; default
    today) to adjudication. Celery beat runs this every night; a second run does nothing."""
    return closing.adjudicate_due_stages(date.fromisoformat(day) if day else None)
