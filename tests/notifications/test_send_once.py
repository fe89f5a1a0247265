"""Each e-mail goes out once however often its task runs: a task retried after the mail
server failed half-way sends the rest and nothing twice. The one documented exception: a crash
after the server accepted a message and before the record committed sends it once more."""

import threading
from collections import Counter

import pytest
from celery.exceptions import Retry
from django.core import mail
from django.core.mail.backends import locmem

from apps.notifications import tasks
from apps.notifications.delivery import Message, send_once
from apps.notifications.models import SentNotification

FLAKY = "tests.notifications.test_send_once.FlakyBackend"
LOSES_THE_RECORD = "tests.notifications.test_send_once.AcceptsThenCrashes"


class FlakyBackend(locmem.EmailBackend):
    """The mail server goes away once, when it is handed message number ``fail_at``."""

    fail_at: int | None = None
    handed = 0

    def send_messages(self, messages):
        for _ in messages:
            FlakyBackend.handed += 1
            if FlakyBackend.handed == FlakyBackend.fail_at:
                raise ConnectionResetError("the mail server went away")
        return super().send_messages(messages)


class AcceptsThenCrashes(locmem.EmailBackend):
    """The server takes message number ``crash_at``, then the worker dies before committing."""

    crash_at: int | None = None
    handed = 0

    def send_messages(self, messages):
        sent = super().send_messages(messages)
        AcceptsThenCrashes.handed += len(messages)
        if AcceptsThenCrashes.handed == AcceptsThenCrashes.crash_at:
            raise SystemExit("worker killed")
        return sent


def _fresh(world):
    mail.outbox.clear()
    SentNotification.objects.all().delete()


def test_a_task_retried_after_the_mail_server_failed_sends_each_email_once(world, settings):
    _fresh(world)
    settings.EMAIL_BACKEND = FLAKY
    FlakyBackend.handed, FlakyBackend.fail_at = 0, 5
    with pytest.raises(Retry):  # in a worker Celery runs it again; here we do
        tasks.send_start_lists.delay(world.group.pk)
    assert len(mail.outbox) == 4
    assert SentNotification.objects.count() == 4

    assert tasks.send_start_lists.delay(world.group.pk).get() == 8
    addresses = Counter(m.to[0] for m in mail.outbox)
    assert sorted(addresses) == sorted(world.emails(world.group))
    assert set(addresses.values()) == {1}

    assert tasks.send_start_lists.delay(world.group.pk).get() == 0  # a third run: nothing
    assert len(mail.outbox) == 12


def test_the_whole_fan_out_run_twice_sends_each_start_list_once(world):
    _fresh(world)
    tasks.draw_published.delay(world.stage.pk)
    tasks.draw_published.delay(world.stage.pk)
    assert len(mail.outbox) == 24
    assert set(Counter(m.to[0] for m in mail.outbox).values()) == {1}


def test_a_crash_between_acceptance_and_commit_resends_that_one_message(world, settings):
    """The documented choice (apps/notifications/delivery.py): at least once in that window."""
    _fresh(world)
    settings.EMAIL_BACKEND = LOSES_THE_RECORD
    AcceptsThenCrashes.handed, AcceptsThenCrashes.crash_at = 0, 3
    with pytest.raises(SystemExit):
        tasks.send_start_lists.delay(world.group.pk)
    assert len(mail.outbox) == 3 and SentNotification.objects.count() == 2

    tasks.send_start_lists.delay(world.group.pk)
    addresses = Counter(m.to[0] for m in mail.outbox)
    assert len(addresses) == 12
    assert sorted(addresses.values()) == [1] * 11 + [2]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_copies_of_a_task_at_once_send_the_message_once():
    message = Message("result", "game:1:1", "someone@players.test", "subject", "body")
    start = threading.Barrier(2)
    sent = []

    def run():
        from django.db import connection

        start.wait()
        try:
            sent.append(send_once(message))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(sent) == [False, True]
    assert len(mail.outbox) == 1
