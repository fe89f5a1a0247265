"""Celery tasks of the players app: thin wrappers around the e-mails (each may run again:
every message is sent once)."""

from __future__ import annotations

from celery import shared_task

from apps.notifications.delivery import send_all
from apps.notifications.tasks import RETRY

from . import registration_emails


@shared_task(**RETRY)
def registration_changed(registration_id: int, event_id: int) -> int:
    """E-mail the player of a request the change ``event_id`` made to it (and the
    organizers, when the change is a request arriving or withdrawn)."""
    return send_all(
        registration_emails.registration_messages(registration_id, event_id)
        + registration_emails.organizer_messages(registration_id, event_id)
    )
