"""Celery tasks that send the e-mails of accounts (each e-mail once, see notifications)."""

from __future__ import annotations

from celery import shared_task

from apps.notifications.delivery import send_all
from apps.notifications.tasks import RETRY

from . import emails


@shared_task(**RETRY)
def send_invitation(invitation_id: int) -> int:
    message = emails.invitation_message(invitation_id)
    return send_all([message] if message else [])


@shared_task(**RETRY)
def send_claim_links(entrant_ids: list[int], nonce: str) -> int:
    return send_all(emails.claim_messages(entrant_ids, nonce))
