"""Tasks of the core: the outbox sweep (a thin wrapper around ``apps.core.outbox``)."""

from __future__ import annotations

from celery import shared_task

from . import outbox


@shared_task(outbox=False)
def send_unsent_tasks() -> int:
    """Beat, every minute: send again the tasks the broker did not take."""
    return outbox.send_unsent()
