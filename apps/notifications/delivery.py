"""Sending an e-mail once, however often the task that sends it runs.

Each message is one transaction: insert the ``SentNotification`` row (unique per kind, key and
recipient), hand the message to the mail server, commit. A retried task finds the row and
skips the message; two copies of a task running at once serialize on the unique row, and the
second skips. The one window left is a crash after the mail server accepted the message and
before the commit: the row is rolled back and the retry sends the message again. We chose
that rare duplicate over the alternative (commit the row first, then send), whose crash
window loses the e-mail for good — a lost start list is worse than a repeated one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction

from apps.core import site

from .models import SentNotification


@dataclass(frozen=True)
class Message:
    kind: str
    key: str
    recipient: str
    subject: str
    body: str


def absolute_url(path: str) -> str:
    """A link for an e-mail: the site's address + the path. ``SITE_URL`` when it is set, else
    the address the site was last reached on (e-mails are written outside requests; see
    ``apps.core.site``)."""
    return site.absolute_url(path)


def deliverable(address: str) -> bool:
    """Automatic notifications skip empty addresses and the domains in
    ``NOTIFICATIONS_SKIP_DOMAINS`` (by default the reserved example.com/.net/.org, which
    have no mailboxes: the demo's and the tests' invented players use them)."""
    if "@" not in address:
        return False
    domain = address.rsplit("@", 1)[1].lower()
    return domain not in {d.lower() for d in settings.NOTIFICATIONS_SKIP_DOMAINS}


def send_once(message: Message, connection=None) -> bool:
    """Send ``message`` unless it was sent before; True if it was sent now."""
    with transaction.atomic():
        _, created = SentNotification.objects.get_or_create(
            kind=message.kind, key=message.key, recipient=message.recipient.lower()
        )
        if not created:
            return False
        EmailMessage(
            message.subject, message.body, to=[message.recipient], connection=connection
        ).send()
    return True


def send_all(messages: Iterable[Message]) -> int:
    """Send each message once over one connection; returns how many were sent now.

    The messages sent before (by an earlier run of the same task) are found with one query
    and skipped; :func:`send_once` still guards each of the others.
    """
    messages = list(messages)
    if not messages:
        return 0
    sent_before = set(
        SentNotification.objects.filter(
            kind__in={m.kind for m in messages}, key__in={m.key for m in messages}
        ).values_list("kind", "key", "recipient")
    )
    todo = [m for m in messages if (m.kind, m.key, m.recipient.lower()) not in sent_before]
    if not todo:
        return 0
    sent = 0
    with get_connection() as connection:
        for message in todo:
            sent += send_once(message, connection)
    return sent
