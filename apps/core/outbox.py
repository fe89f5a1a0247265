"""The outbox of tasks the broker did not take.

A change commits, then sends its tasks (``transaction.on_commit``). When the broker is
unreachable, sending fails after the change is saved; the app's task class
(``config/celery.py``) then keeps the task here instead of losing it, and the periodic
sweep :func:`send_unsent` (beat, every minute) sends what is kept once the broker answers
again. Tasks whose need is already kept elsewhere opt out with ``outbox = False`` on the task
(the standings' recompute: the group's mark and its sweep; the draw's steps: the job and
its sweep; a format lab run's parts: the run and its sweep; the periodic tasks themselves:
beat sends them again).

Every task whose loss would leave something unfinished is kept one way or the other (issue
26): the publication's verification files (``store_published_files``), a Swiss round's
pairing (``pair_swiss_round``: nothing else would ask for an automatic pairing again), the
e-mails and an entrant import's job are kept here; the rest by their marks, jobs or runs and
their sweeps, or by beat.

Delivery is at least once: the tasks kept here are those whose sending failed, and a task
is deleted from the outbox only after the broker took it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError, transaction

from .models import UnsentTask

logger = logging.getLogger(__name__)

# Tasks sent again per sweep at the most (the next sweep takes the rest).
BATCH = 1_000


def keep(task: str, args: Sequence[Any] | None, kwargs: dict[str, Any] | None) -> bool:
    """Keep a task the broker did not take; True if it is kept. Never raises: a database
    that is away too loses the task, as before, with an error in the log."""
    try:
        UnsentTask.objects.create(task=task, args=list(args or ()), kwargs=dict(kwargs or {}))
    except (DatabaseError, TypeError, ValueError):
        logger.exception("Task %s%r could not be kept in the outbox either.", task, args)
        return False
    return True


def send_unsent(limit: int = BATCH) -> int:
    """Send the kept tasks again, oldest first, and forget each one the broker took;
    returns how many were sent. A broker that fails again stops the sweep (it raises; the
    rest wait for the next sweep). Two sweeps at once take different rows."""
    from celery import current_app

    sent = 0
    for pk in UnsentTask.objects.order_by("id").values_list("id", flat=True)[:limit]:
        # One row at a time: a row is deleted in the transaction that sent it, so a broker
        # failing halfway leaves exactly the rows not sent.
        with transaction.atomic():
            row = (
                UnsentTask.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(pk=pk)
                .first()
            )
            if row is None:
                continue  # another sweep has it
            task = current_app.tasks.get(row.task)
            if task is None:
                logger.error("Outbox: no task %s any more; %r dropped.", row.task, row.args)
            else:
                task.apply_async(row.args, row.kwargs)
                sent += 1
            row.delete()
    if sent:
        logger.warning("Outbox: %s task(s) the broker had not taken are sent now.", sent)
    return sent
