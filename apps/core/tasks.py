"""Tasks of the core: the outbox sweep (a thin wrapper around ``apps.core.outbox``), and the
options the apps' tasks share.

:data:`RETRY` is how a task that may run again is run: acknowledged only after it ran (a
killed worker's task is delivered again) and retried on database errors, with backoff, five
times. :data:`STEP` is a step of a long piece of work (a draw, a format lab run): the same, not kept
by the outbox (the work itself is kept, and asked for again by its sweep), and stopped past a
few minutes. (A Swiss round's pairing starts from it but is kept by the outbox, with its own
time limit and failure hook: ``apps/office/swiss/tasks.py``.)
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import DatabaseError

from . import outbox

RETRY: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (DatabaseError,),
    "retry_backoff": True,
    "max_retries": 5,
}

STEP: dict[str, Any] = {
    **RETRY,
    "outbox": False,
    # A step (a division, a batch of groups, a draw's finish, a minute of a lab run) takes
    # seconds at 100,000 entrants; one past these limits is stopped (its on_failure, if any,
    # marks its work failed).
    "soft_time_limit": 240,
    "time_limit": 300,
}


# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(outbox=False)  # type: ignore[call-overload]
def send_unsent_tasks() -> int:
    """Beat, every minute: send again the tasks the broker did not take."""
    return outbox.send_unsent()
