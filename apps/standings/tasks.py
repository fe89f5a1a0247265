"""The coalesced standings recompute: one queued task per group at a time."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError

from . import services


@shared_task(acks_late=True, autoretry_for=(DatabaseError,), retry_backoff=True, max_retries=5)
def recompute_group_standings(group_id: int) -> int:
    return services.recompute_group(group_id)
