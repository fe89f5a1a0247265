"""Celery tasks that send notifications: thin wrappers around ``services`` and ``delivery``.

Large fan-outs are chunked: a published draw queues one task per group (about a hundred
e-mails each), the daily digest one task per TD. Every task may run again (acknowledged late,
retried on database or mail-server errors) and sends each e-mail once (see ``delivery``).
"""

from __future__ import annotations

from datetime import date

from celery import shared_task
from django.db import DatabaseError
from django.utils import timezone

from apps.core import tasks as core_tasks
from apps.groups.models import Group

from . import services
from .delivery import send_all

# The core's retries, and the mail server's errors too: smtplib's errors are OSErrors, as are
# refused connections.
RETRY = {**core_tasks.RETRY, "autoretry_for": (DatabaseError, OSError)}


@shared_task(**RETRY)
def draw_published(stage_id: int) -> int:
    """Queue one start-list task per group of the stage."""
    group_ids = list(Group.objects.filter(stage_id=stage_id).values_list("pk", flat=True))
    for group_id in group_ids:
        send_start_lists.delay(group_id)
    return len(group_ids)


@shared_task(**RETRY)
def send_start_lists(group_id: int) -> int:
    return send_all(services.start_list_messages(group_id))


@shared_task(**RETRY)
def swiss_round_paired(stage_id: int, round_number: int) -> int:
    """Round ``round_number`` of a Swiss stage was paired: each player's pairing (once)."""
    return send_all(services.swiss_round_messages(stage_id, round_number))


@shared_task(**RETRY)
def swiss_round_deadline(stage_id: int, round_number: int) -> int:
    """Round ``round_number`` of a Swiss stage passed its deadline with games unfinished: its
    TD and the organizers are told (once each)."""
    return send_all(services.swiss_deadline_messages(stage_id, round_number))


@shared_task(**RETRY)
def result_changed(game_id: int, version: int) -> int:
    return send_all(services.result_messages(game_id, version))


@shared_task(**RETRY)
def entrant_withdrawn(entry_id: int) -> int:
    return send_all(services.withdrawal_messages(entry_id))


@shared_task(**RETRY)
def send_td_digests(day: str | None = None) -> int:
    """Queue one digest task per TD whose groups changed on ``day`` (ISO date; default
    yesterday). Celery beat runs this every morning."""
    the_day = date.fromisoformat(day) if day else services.yesterday()
    td_ids = services.digest_recipients(the_day)
    for td_id in td_ids:
        send_td_digest.delay(td_id, the_day.isoformat())
    return len(td_ids)


@shared_task(**RETRY)
def send_td_digest(td_id: int, day: str) -> int:
    return services.send_td_digest(td_id, date.fromisoformat(day))


@shared_task(**RETRY)
def send_deadline_reminders(day: str | None = None) -> int:
    """Queue one reminder task per group with open games in a stage whose play ends within
    ``DEADLINE_REMINDER_DAYS`` of ``day`` (ISO date; default today). Celery beat runs this
    every morning; each player gets one reminder per stage however often it runs."""
    the_day = date.fromisoformat(day) if day else timezone.localdate()
    group_ids = services.reminder_groups(the_day)
    for group_id in group_ids:
        send_deadline_reminder.delay(group_id, the_day.isoformat())
    return len(group_ids)


@shared_task(**RETRY)
def send_deadline_reminder(group_id: int, day: str) -> int:
    return send_all(services.deadline_messages(group_id, date.fromisoformat(day)))


@shared_task(**RETRY)
def results_imported(event_id: int) -> int:
    """A results import (its ``results.imported`` audit event) set results: queue one task
    per batch of ``IMPORT_DIGEST_BATCH`` players, each sending its players' digests."""
    batches = services.import_digest_batches(event_id)
    for batch in batches:
        send_import_digests.delay(event_id, batch)
    return len(batches)


@shared_task(**RETRY)
def send_import_digests(event_id: int, entrant_ids: list[int]) -> int:
    return send_all(services.import_digest_messages(event_id, entrant_ids))
