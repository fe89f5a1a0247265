"""Closing registration while an entrant import job waits or runs is refused with a sentence
(issue 26, item 9): the API answers 409, the page shows the message, nothing changes. It
used to be accepted, and the job then failed ("Registration for this stage is closed")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.core.errors import ActionError, ErrorCode
from apps.entrants import importing, jobs, tasks
from apps.entrants.models import ImportJob
from apps.entrants.services import close_registration
from apps.stages.models import Stage

from .test_import_jobs import JOB_ROWS, big_file

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_threshold(settings, monkeypatch):
    settings.ENTRANT_IMPORT_JOB_ROWS = JOB_ROWS
    monkeypatch.setattr(importing, "PIECE_ROWS", 7)


@pytest.fixture
def no_worker(never_run):
    return never_run(tasks.run_import)


def still_open(stage) -> bool:
    stage.refresh_from_db()
    return stage.status == Stage.Status.DRAFT and not stage.entrants_digest


@pytest.mark.parametrize("status", [ImportJob.Status.PENDING, ImportJob.Status.RUNNING])
@pytest.mark.parametrize("dry_run", [False, True])
def test_the_action_refuses_while_an_import_job_waits_or_runs(
    organizer, stage, no_worker, status, dry_run
):
    job = jobs.start_import(organizer, stage, big_file(30), dry_run=dry_run)
    ImportJob.objects.filter(pk=job.pk).update(status=status, done_rows=14)
    with pytest.raises(ActionError) as refused:
        close_registration(organizer, stage)
    assert refused.value.code == ErrorCode.CONFLICT
    assert "still running" in refused.value.message and "14 of 30" in refused.value.message
    assert still_open(stage)


def test_once_the_job_is_done_registration_closes(organizer, stage, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30))
    assert tasks.run_import(job.pk) == ImportJob.Status.SUCCEEDED
    assert close_registration(organizer, stage).status == Stage.Status.REGISTRATION_CLOSED


def test_a_job_lost_past_its_time_limit_does_not_stand_in_the_way(organizer, stage, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30))
    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJob.Status.RUNNING,
        created_at=timezone.now() - ImportJob.TIME_LIMIT - timedelta(minutes=1),
    )
    assert close_registration(organizer, stage).status == Stage.Status.REGISTRATION_CLOSED
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED


def test_the_api_answers_409_and_the_page_shows_why(
    org, organizer_client, stage, organizer, no_worker
):
    jobs.start_import(organizer, stage, big_file(30))
    answer = org.post(f"/api/stages/{stage.pk}/close-registration/")
    assert answer.status_code == 409, answer.content[:300]
    assert answer.json()["code"] == "conflict" and "still running" in answer.json()["message"]
    address = reverse("stage-close", args=[stage.tournament.slug, stage.order])
    response = organizer_client.post(address, follow=True)
    assert "still running" in response.content.decode()
    assert still_open(stage)
