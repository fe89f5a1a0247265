"""Big entrant imports run as a Celery job with a progress bar: through the API (202, then the
job's address) and the pages (upload → progress → preview → confirm → imported); every bad
row listed and nothing written; one import of a stage at a time; a task delivered twice
imports once; a lost job does not block the stage; the job is its organizers' only.

Tasks run in this process (tests/conftest.py): a job queued on commit has run once the
``django_capture_on_commit_callbacks(execute=True)`` block ends.
"""

from __future__ import annotations

import re
from datetime import timedelta
from functools import partial

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants import importing, jobs, services, tasks
from apps.entrants.api import ImportJobSerializer, ImportJobStartedSerializer
from apps.entrants.models import Entrant, ImportJob, StageEntry
from apps.entrants.services import close_registration, engine_entrants
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage

pytestmark = pytest.mark.django_db

JOB_ROWS = 10  # the threshold in these tests: more data rows than this run as a job


@pytest.fixture(autouse=True)
def small_threshold(settings, monkeypatch):
    settings.ENTRANT_IMPORT_JOB_ROWS = JOB_ROWS
    monkeypatch.setattr(importing, "PIECE_ROWS", 7)  # several pieces, so the progress moves


@pytest.fixture
def no_worker(never_run):
    """Queued import jobs go nowhere."""
    return never_run(tasks.run_import)


def big_file(count: int = 30, prefix: str = "B") -> str:
    rows = "".join(f'{prefix}{i:03d},"Player, No {i}",ITA,{1500 + i},,\n' for i in range(count))
    return "code,name,nation,rating,person,email\n" + rows


def import_url(stage, query: str = "") -> str:
    return f"/api/stages/{stage.pk}/entrants/import/{query}"


def page(stage, name: str, *args) -> str:
    return reverse(name, args=[stage.tournament.slug, stage.order, *args])


def upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("entrants.csv", text.encode(), content_type="text/csv")


def codes(stage) -> list[str]:
    return sorted(e.code for e in engine_entrants(stage))


def snapshot():
    return (
        sorted(Entrant.objects.values_list("code", "name", "nation", "rating")),
        StageEntry.objects.count(),
    )


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------


def test_a_big_file_is_imported_by_a_job_followed_at_its_address(
    org, stage, django_capture_on_commit_callbacks
):
    counted: list[int] = []
    real_count = importing._count

    def count(job_id, **values):
        counted.append(values.get("done_rows"))
        real_count(job_id, **values)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(importing, "_count", count)
        with django_capture_on_commit_callbacks(execute=True):
            answer = org.post(import_url(stage), big_file(30), content_type="text/csv")
    assert answer.status_code == 202, answer.json()
    body = answer.json()
    job = ImportJob.objects.get()
    assert body["url"] == f"/api/import-jobs/{job.pk}/" == answer["Location"]
    assert (body["mode"], body["dry_run"], body["total_rows"]) == ("add", False, 30)
    assert set(body) == set(ImportJobStartedSerializer().fields)  # as documented
    # Read in pieces of 7 rows, each counted (a committed write), then the writing phase.
    assert counted == [7, 14, 21, 28, 30, 30]

    progress = org.get(body["url"]).json()
    assert set(progress) == set(ImportJobSerializer().fields)
    assert progress["status"] == "succeeded" and progress["finished"], progress["error"]
    assert (progress["percent"], progress["done_rows"]) == (100, 30)
    assert progress["result"] == {"imported": 30}
    assert len(codes(stage)) == 34
    job.refresh_from_db()
    assert job.csv == "" and job.finished_at is not None
    started = AuditEvent.objects.get(action=Action.ENTRANTS_IMPORT_STARTED)
    assert started.data["job"] == job.pk and started.data["rows"] == 30
    imported = AuditEvent.objects.filter(action=Action.ENTRANTS_IMPORTED).order_by("pk").last()
    assert imported.data == {"count": 30, "job": job.pk}


def test_small_files_are_still_imported_in_the_request(org, stage):
    answer = org.post(import_url(stage), big_file(JOB_ROWS, "S"), content_type="text/csv")
    assert answer.status_code == 201 and answer.json() == {"imported": JOB_ROWS}
    assert not ImportJob.objects.exists()


def test_a_dry_run_job_answers_the_preview_and_writes_nothing(
    org, stage, django_capture_on_commit_callbacks
):
    before = snapshot(), AuditEvent.objects.count()
    text = big_file(30)
    with django_capture_on_commit_callbacks(execute=True):
        answer = org.post(import_url(stage, "?dry_run=1"), text, content_type="text/csv")
    assert answer.status_code == 202
    progress = org.get(answer.json()["url"]).json()
    assert progress["status"] == "succeeded" and progress["dry_run"] is True
    assert progress["result"] == {
        "count": 30,
        "nations": [["ITA", 30]],
        "multi_entry_persons": 0,
        "known_people": [],
    }
    assert (snapshot(), AuditEvent.objects.count()) == before
    assert ImportJob.objects.get().csv == text  # kept for the confirmation


def test_a_replacing_job_answers_what_the_request_would(
    org, stage, settings, django_capture_on_commit_callbacks
):
    text = big_file(20).replace("B000,", "A1,").replace("B001,", "A2,")
    settings.ENTRANT_IMPORT_JOB_ROWS = 1000
    in_request = org.post(
        import_url(stage, "?dry_run=1&mode=replace"), text, content_type="text/csv"
    ).json()
    settings.ENTRANT_IMPORT_JOB_ROWS = JOB_ROWS
    with django_capture_on_commit_callbacks(execute=True):
        answer = org.post(import_url(stage, "?mode=replace"), text, content_type="text/csv")
    assert answer.status_code == 202
    result = org.get(answer.json()["url"]).json()["result"]
    assert result == {**in_request, "applied": True}
    assert result["removed"] == ["A3", "A4"] and len(result["added"]) == 18
    assert codes(stage) == sorted(["A1", "A2", *(f"B{i:03d}" for i in range(2, 20))])
    assert (
        AuditEvent.objects.get(action=Action.ENTRANTS_REPLACED).data["job"] == answer.json()["id"]
    )


def test_bad_rows_fail_the_job_with_every_bad_row_and_nothing_written(
    org, stage, django_capture_on_commit_callbacks
):
    lines = big_file(30).splitlines(keepends=True)
    lines[3] = "B002,,ITA,,,\n"  # no name (line 4)
    lines[12] = "A1,Taken,GER,,,\n"  # a code of the tournament (line 13)
    lines[25] = "B024,Bad,GERMANY,,,\n"  # no such nation (line 26)
    before = snapshot()
    with django_capture_on_commit_callbacks(execute=True):
        answer = org.post(import_url(stage), "".join(lines), content_type="text/csv")
    assert answer.status_code == 202
    progress = org.get(answer.json()["url"]).json()
    assert progress["status"] == "failed" and progress["finished"]
    assert "3 bad rows; nothing was imported" in progress["error"]
    assert [d["line"] for d in progress["details"]] == [4, 13, 26]
    assert "already registered" in progress["details"][1]["message"]
    assert progress["result"] is None
    assert snapshot() == before
    job = ImportJob.objects.get()
    assert job.csv == ""
    failed = AuditEvent.objects.get(action=Action.ENTRANTS_IMPORT_FAILED)
    assert failed.data["job"] == job.pk and failed.data["bad_rows"] == 3


def test_the_job_reports_the_same_bad_rows_as_the_request(org, organizer, stage, settings):
    text = big_file(25).replace("B003,", "B004,") + "B030,Tab\there,ITA,,,\nB031,x,ITA,9999,,\n"
    settings.ENTRANT_IMPORT_JOB_ROWS = 1000
    in_request = org.post(import_url(stage), text, content_type="text/csv").json()
    job = jobs.start_import(organizer, stage, text)
    tasks.run_import(job.pk)
    job.refresh_from_db()
    assert in_request["code"] == "bad_rows"
    assert (job.error, job.details) == (in_request["message"], in_request["details"])


def test_a_second_import_while_one_runs_is_refused_with_409(org, stage, no_worker):
    first = org.post(import_url(stage), big_file(30), content_type="text/csv")
    assert first.status_code == 202
    second = org.post(import_url(stage, "?dry_run=1"), big_file(30, "C"), content_type="text/csv")
    assert second.status_code == 409
    assert second.json()["code"] == "conflict" and "already running" in second.json()["message"]
    assert ImportJob.objects.count() == 1
    # A small file is not a job, and waits for nobody.
    assert org.post(import_url(stage), big_file(3, "D"), content_type="text/csv").status_code == 201


def test_the_database_holds_one_unfinished_job_per_stage(organizer, stage, no_worker):
    """The action refuses a second import (409, above); the table does too, whatever raced."""
    job = jobs.start_import(organizer, stage, big_file(30))
    with pytest.raises(IntegrityError), transaction.atomic():
        ImportJob.objects.create(stage=stage, csv="raced")
    ImportJob.fail(job.pk, "Cancelled")
    ImportJob.objects.create(stage=stage, csv="after")  # finished jobs do not count


def test_a_lost_job_does_not_block_the_stage(organizer, stage, org, no_worker):
    lost = jobs.start_import(organizer, stage, big_file(30))
    ImportJob.objects.filter(pk=lost.pk).update(
        created_at=timezone.now() - ImportJob.TIME_LIMIT - timedelta(minutes=1)
    )
    # Its progress says it stopped, and a new import may start.
    progress = org.get(f"/api/import-jobs/{lost.pk}/").json()
    assert progress["status"] == "failed" and "Start the import again" in progress["error"]
    jobs.start_import(organizer, stage, big_file(30))
    assert ImportJob.objects.filter(status=ImportJob.Status.PENDING).count() == 1


def test_a_lost_job_is_stopped_when_the_next_one_starts(organizer, stage, no_worker):
    lost = jobs.start_import(organizer, stage, big_file(30))
    ImportJob.objects.filter(pk=lost.pk).update(
        status=ImportJob.Status.RUNNING,
        created_at=timezone.now() - ImportJob.TIME_LIMIT - timedelta(minutes=1),
    )
    jobs.start_import(organizer, stage, big_file(30))
    lost.refresh_from_db()
    assert lost.status == ImportJob.Status.FAILED and lost.csv == ""
    # Its task, delivered at last, finds it finished and writes nothing.
    assert tasks.run_import(lost.pk) == "finished"
    assert codes(stage) == ["A1", "A2", "A3", "A4"]


def test_a_task_delivered_again_imports_nothing_more(
    organizer, stage, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.start_import(organizer, stage, big_file(30))
    job.refresh_from_db()
    assert job.status == ImportJob.Status.SUCCEEDED
    state = (snapshot(), AuditEvent.objects.count(), job.result, job.finished_at)
    assert tasks.run_import(job.pk) == "finished"
    job.refresh_from_db()
    assert (snapshot(), AuditEvent.objects.count(), job.result, job.finished_at) == state


def test_a_task_delivered_again_while_running_imports_once(organizer, stage, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30))
    # The first worker claimed the job and died while reading; the task comes back.
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, done_rows=14)
    assert tasks.run_import(job.pk) == ImportJob.Status.SUCCEEDED
    assert tasks.run_import(job.pk) == "finished"
    assert len(codes(stage)) == 34


def test_a_job_refused_when_it_runs_fails_and_writes_nothing(organizer, stage, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30))
    # Closing registration is refused while the job waits (test_close_registration_jobs.py);
    # the job still checks the stage itself when it runs.
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.REGISTRATION_CLOSED)
    assert tasks.run_import(job.pk) == ImportJob.Status.FAILED
    job.refresh_from_db()
    assert "Registration for this stage is closed" in job.error
    assert codes(stage) == ["A1", "A2", "A3", "A4"]


def test_an_error_in_the_task_fails_the_job(organizer, stage, no_worker, monkeypatch):
    job = jobs.start_import(organizer, stage, big_file(30))

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(importing, "_finish", broken)
    # Run as a worker runs it (an error fails the task, which calls its failure hook).
    outcome = tasks.run_import.apply((job.pk,), throw=False)
    assert outcome.failed() and isinstance(outcome.result, RuntimeError)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED and "stopped on an error" in job.error


def test_starting_is_refused_as_the_request_would_be(organizer, stranger, stage, no_worker):
    with pytest.raises(ActionError) as refused:
        jobs.start_import(stranger, stage, big_file(30))
    assert refused.value.code == ErrorCode.PERMISSION_DENIED
    with pytest.raises(ActionError) as refused:
        jobs.start_import(organizer, stage, big_file(30), mode="merge")
    assert refused.value.code == ErrorCode.INVALID_INPUT
    close_registration(organizer, stage)
    for mode in ("add", "replace"):
        with pytest.raises(ActionError) as refused:
            jobs.start_import(organizer, stage, big_file(30), mode=mode)
        assert refused.value.code == ErrorCode.WRONG_STATUS
    assert not ImportJob.objects.exists() and no_worker == []


def test_only_the_organizers_see_the_job(org, joe, anon, stage, organizer, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30))
    progress = org.get(f"/api/import-jobs/{job.pk}/")
    assert progress.status_code == 200
    assert progress.json()["status"] == "pending" and progress.json()["percent"] == 0
    for client in (joe, anon):
        answer = client.get(f"/api/import-jobs/{job.pk}/")  # as a draw job's progress
        assert answer.status_code == 403
    assert org.get(f"/api/import-jobs/{job.pk + 1}/").status_code == 404


def test_the_progress_counts_the_rows_and_then_the_writing(organizer, stage, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30))
    assert jobs.job_progress(job)["status_display"] == "Waiting for a worker"
    job.status, job.phase, job.done_rows = ImportJob.Status.RUNNING, "checking", 15
    progress = jobs.job_progress(job)
    assert (progress["status_display"], progress["percent"]) == ("Checking", 30)
    job.dry_run = True
    assert jobs.job_progress(job)["percent"] == 50
    job.dry_run, job.phase = False, "saving"
    progress = jobs.job_progress(job)
    assert (progress["status_display"], progress["percent"]) == ("Importing", 80)


# ---------------------------------------------------------------------------
# Reading in pieces finds what reading the whole file finds
# ---------------------------------------------------------------------------


def outcome(read):
    try:
        parsed = read()
    except ActionError as error:
        return error.message, error.details
    return parsed.rows, [(e.line, e.message) for e in parsed.errors]


GOOD = entrants_csv(make_entrants(60, "pieces"))
LINES = GOOD.splitlines(keepends=True)


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        "\ufeff" + GOOD.replace("\n", "\r\n"),
        GOOD.replace("\n", "\r"),
        "".join(
            LINES[:10] + ["\n", " , ,\n", "X,,GER,,,\n", 'Q,"two\nlines",ITA,,,\n'] + LINES[10:]
        ),
        "".join(LINES[:50] + [LINES[3]] + LINES[50:]),  # a code used twice
        "".join(LINES[:20] + ['A,"open quote,ITA,,,\n'] + LINES[20:]),
        "code,name,nation\n" + "".join(f"C{i},,XXX\n" for i in range(30)),  # every row bad
        "code,name\nA,B\n",
        "code,name,nation\n\n\n",
        "",
    ],
    ids=[
        "good",
        "bom-crlf",
        "cr",
        "bad-rows",
        "duplicate",
        "quote",
        "all-bad",
        "header",
        "no-rows",
        "empty",
    ],
)
def test_reading_in_pieces_finds_what_reading_the_whole_file_finds(text):
    whole = outcome(lambda: services.parse_file(text))
    for size in (1, 4, 25, 1000):
        assert outcome(partial(importing.read_file, text, size=size)) == whole, size


# ---------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------


def test_the_page_flow_upload_progress_preview_confirm_imported(
    organizer_client, stage, django_capture_on_commit_callbacks
):
    before = snapshot()
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(
            page(stage, "stage-import"), {"file": upload(big_file(30))}
        )
    preview_job = ImportJob.objects.get()
    assert preview_job.dry_run
    assert response.status_code == 302
    assert response["Location"] == page(stage, "stage-import-job", preview_job.pk)

    response = organizer_client.get(response["Location"])
    html = response.content.decode()
    assert response.status_code == 200
    assert reverse("api-import-job", args=[preview_job.pk]) in html
    assert 'value="100"' in html and "import-progress.js" in html
    assert "Confirm import of 30 entrants" in html
    assert snapshot() == before  # the preview wrote nothing

    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(page(stage, "stage-import-job-confirm", preview_job.pk))
    job = ImportJob.objects.exclude(pk=preview_job.pk).get()
    assert (job.dry_run, job.preview_id) == (False, preview_job.pk)
    assert response["Location"] == page(stage, "stage-import-job", job.pk)
    html = organizer_client.get(response["Location"]).content.decode()
    assert "Imported 30 entrants." in html
    assert page(stage, "stage-entrants") in html
    assert len(codes(stage)) == 34
    preview_job.refresh_from_db()
    assert preview_job.csv == "" and job.csv == ""

    # The preview is spent: it says so, and a second confirmation imports nothing.
    html = organizer_client.get(page(stage, "stage-import-job", preview_job.pk)).content.decode()
    assert "This preview was confirmed." in html and "Confirm import" not in html
    response = organizer_client.post(
        page(stage, "stage-import-job-confirm", preview_job.pk), follow=True
    )
    assert "can no longer be confirmed" in response.content.decode()
    assert len(codes(stage)) == 34 and ImportJob.objects.count() == 2


def test_the_page_previews_a_big_replacement_by_code(
    organizer_client, stage, django_capture_on_commit_callbacks
):
    text = big_file(20).replace("B000,", "A1,")
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(
            page(stage, "stage-import"), {"file": upload(text), "mode": "replace"}
        )
    html = organizer_client.get(response["Location"]).content.decode()
    assert "Preview: the file replaces the list" in html
    assert re.search(r'id="count-added">19<', html) and re.search(r'id="count-removed">3<', html)
    assert re.search(r'id="count-changed">1<', html)
    assert "<code>B019</code>" in html and "Confirm: replace the list" in html
    job = ImportJob.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(page(stage, "stage-import-job-confirm", job.pk))
    html = organizer_client.get(response["Location"]).content.decode()
    assert "19 added, 1 changed, 3 removed, 20 entrants now" in html
    assert codes(stage) == sorted(["A1", *(f"B{i:03d}" for i in range(1, 20))])


def test_the_page_of_a_failed_job_lists_every_bad_row(
    organizer_client, stage, django_capture_on_commit_callbacks
):
    text = big_file(30).replace("B005,", "B006,").replace('"Player, No 20"', "")
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(page(stage, "stage-import"), {"file": upload(text)})
    html = organizer_client.get(response["Location"]).content.decode()
    assert "Nothing was imported" in html
    assert re.findall(r'<tr><td class="num">(\d+)</td>', html) == ["8", "22"]
    assert "Preview the import" in html and "Confirm import" not in html
    assert codes(stage) == ["A1", "A2", "A3", "A4"]


def test_a_running_job_shows_its_bar_and_a_refresh_link(
    organizer_client, stage, organizer, no_worker
):
    job = jobs.start_import(organizer, stage, big_file(30), dry_run=True)
    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJob.Status.RUNNING, phase="checking", done_rows=14
    )
    html = organizer_client.get(page(stage, "stage-import-job", job.pk)).content.decode()
    assert 'data-finished="false"' in html and "14 of 30 rows checked" in html
    assert 'value="47"' in html and "Refresh to see the progress." in html
    # Another big upload, meanwhile, leads to this job, saying it runs.
    response = organizer_client.post(
        page(stage, "stage-import"), {"file": upload(big_file(30))}, follow=True
    )
    assert response.redirect_chain[-1][0] == page(stage, "stage-import-job", job.pk)
    assert "already running" in response.content.decode()
    assert ImportJob.objects.count() == 1


def test_a_big_file_confirmed_by_the_old_form_is_imported_by_a_job(
    organizer_client, stage, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(
            page(stage, "stage-import-confirm"), {"csv": big_file(30), "mode": "add"}
        )
    job = ImportJob.objects.get()
    assert not job.dry_run
    assert response["Location"] == page(stage, "stage-import-job", job.pk)
    assert len(codes(stage)) == 34


def test_a_preview_older_than_a_day_cannot_be_confirmed(
    organizer, organizer_client, stage, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.start_import(organizer, stage, big_file(30), dry_run=True)
    ImportJob.objects.filter(pk=job.pk).update(
        finished_at=timezone.now() - jobs.KEEP_PREVIEW - timedelta(minutes=1)
    )
    html = organizer_client.get(page(stage, "stage-import-job", job.pk)).content.decode()
    assert "can no longer be confirmed" in html and "Confirm import" not in html
    with pytest.raises(ActionError):
        jobs.confirm_import(organizer, job)
    # The next import lets go of the old file.
    jobs.start_import(organizer, stage, big_file(30, "C"), dry_run=True)
    job.refresh_from_db()
    assert job.csv == ""


def test_only_organizers_open_the_job_pages(client, stranger_client, stage, organizer, no_worker):
    job = jobs.start_import(organizer, stage, big_file(30), dry_run=True)
    url = page(stage, "stage-import-job", job.pk)
    assert stranger_client.get(url).status_code == 403
    assert stranger_client.post(page(stage, "stage-import-job-confirm", job.pk)).status_code == 403
    client.logout()
    assert client.get(url).status_code == 302


# ---------------------------------------------------------------------------
# 200,000 rows
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_an_import_of_200000_rows_completes_through_the_job(
    org, cup, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.ENTRANT_IMPORT_JOB_ROWS = 5000
    monkeypatch.setattr(importing, "PIECE_ROWS", 5000)
    stage = cup.first_stage
    text = entrants_csv(make_entrants(200_000, "two hundred thousand"))
    with django_capture_on_commit_callbacks(execute=True):
        answer = org.post(import_url(stage), text, content_type="text/csv")
    assert answer.status_code == 202
    progress = org.get(answer.json()["url"]).json()
    assert progress["status"] == "succeeded", progress["error"]
    assert progress["result"] == {"imported": 200_000}
    assert stage.entries.count() == 200_000
    assert Entrant.objects.filter(tournament=cup).count() == 200_000
