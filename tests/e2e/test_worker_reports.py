"""Reported results on PostgreSQL with a real worker: the opponent's e-mail goes once however
often its task runs, and a report nobody answers stands once when beat's hourly task runs
twice at the same time."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.notifications.models import Kind, SentNotification
from apps.office.services import publish_draw, start_draw
from apps.results.models import ResultReport
from apps.results.reports import report_result
from apps.results.tasks import accept_due_reports, result_reported
from tests.worlds.worker import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import closed_stage, finished, wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

REPORTED = "apps.results.tasks.result_reported"
ACCEPT = "apps.results.tasks.accept_due_reports"


def test_a_report_mails_once_and_stands_once_through_the_worker(
    organizer, start_worker, monkeypatch
):
    monkeypatch.setenv("NOTIFICATIONS_SKIP_DOMAINS", "")
    monkeypatch.setenv("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")
    stage = closed_stage(organizer, 300)
    worker = start_worker()
    job = finished(start_draw(organizer, stage, "report seed"), worker.output)
    assert job.status == job.Status.SUCCEEDED, job.error
    publish_draw(organizer, stage)
    game = Game.objects.filter(group__stage=stage).select_related("white", "black").first()
    users = get_user_model().objects
    white = users.create_user("white-player")
    black = users.create_user("black-player")
    Entrant.objects.filter(pk=game.white_id).update(user=white)
    Entrant.objects.filter(pk=game.black_id).update(user=black)

    report = report_result(white, game, "1-0")  # its commit queues the opponent's e-mail
    result_reported.delay(report.pk)  # and a redelivery
    asked = SentNotification.objects.filter(kind=Kind.REPORT, key=f"report:{report.pk}")
    wait_until(
        "both runs of the e-mail task",
        lambda: worker.ran(REPORTED, 2),
        explain=worker.output,
    )
    assert list(asked.values_list("recipient", flat=True)) == [game.black.email.lower()]

    ResultReport.objects.filter(pk=report.pk).update(created_at=timezone.now() - timedelta(days=8))
    accept_due_reports.delay()
    accept_due_reports.delay()
    wait_until(
        "both acceptance runs",
        lambda: worker.ran(ACCEPT, 2),
        explain=worker.output,
    )
    game.refresh_from_db()
    assert (game.result, game.version) == ("1-0", 1)
    assert ResultReport.objects.get(pk=report.pk).status == "accepted"
    accepted = AuditEvent.objects.filter(action=Action.RESULT_REPORT_ACCEPTED, game_id=game.pk)
    assert accepted.count() == 1 and accepted.get().actor is None
    results = SentNotification.objects.filter(kind=Kind.RESULT, key=f"game:{game.pk}:1")
    wait_until("both players learn the result", lambda: results.count() == 2, explain=worker.output)
