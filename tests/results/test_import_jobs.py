"""Big results imports (CSV and PGN, a group's or a whole stage's) run as a Celery job with a
progress bar: through the API (202, then the job's address) and the pages (upload → progress
→ preview → confirm → imported); every bad line listed and nothing written; one import of a
group or stage at a time (409 with a sentence); a job whose worker was killed midway runs
again and applies the file once; a task delivered twice changes nothing more.

Tasks run in this process (tests/conftest.py): a job queued on commit has run once the
``django_capture_on_commit_callbacks(execute=True)`` block ends. ``RESULT_IMPORT_JOB_CHARS``
is set low here, so that the small world's files count as big.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent, ResultChange
from apps.groups.models import Game, Group
from apps.results import import_jobs, imports, tasks
from apps.results.api import ResultImportJobSerializer, ResultImportJobStartedSerializer
from apps.results.imports import import_results
from apps.results.models import ResultImportJob
from tests.worlds.published import build_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db

JOB_CHARS = 100  # the threshold in these tests: longer files run as a job
HEADER = "white,black,result,date,pgn"


@pytest.fixture(autouse=True)
def small_threshold(settings, monkeypatch):
    settings.RESULT_IMPORT_JOB_CHARS = JOB_CHARS
    monkeypatch.setattr(imports, "PROGRESS_EVERY", 3)  # the progress moves in a small file
    monkeypatch.setattr(import_jobs, "PROGRESS_SECONDS", 0)  # … and is stored each time


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


@pytest.fixture
def no_worker(never_run):
    """Queued results import jobs go nowhere."""
    return never_run(tasks.run_result_import)


def games_of(group: Group) -> list[Game]:
    return list(
        Game.objects.filter(group=group).select_related("white", "black").order_by("number")
    )


def csv_file(games: list[Game], result: str = "1-0") -> str:
    rows = [f"{g.white.code},{g.black.code},{result},2025-03-01," for g in games]
    return "\n".join([HEADER, *rows]) + "\n"


def pgn_file(games: list[Game]) -> str:
    return "".join(
        f'[Event "Club"]\n[White "{g.white.name}"]\n[Black "{g.black.name}"]\n'
        f'[Result "0-1"]\n[WhiteCode "{g.white.code}"]\n[BlackCode "{g.black.code}"]\n\n'
        "1. f3 e5 2. g4 Qh4# 0-1\n\n"
        for g in games
    )


def results(group: Group) -> list[tuple]:
    return list(
        Game.objects.filter(group=group).order_by("number").values_list("result", "version")
    )


def group_api(group: Group, query: str = "") -> str:
    return f"/api/groups/{group.pk}/results/import/{query}"


def stage_api(stage, query: str = "") -> str:
    return f"/api/stages/{stage.pk}/results/import/{query}"


def page(group: Group, name: str, *args) -> str:
    stage = group.stage
    return reverse(name, args=[stage.tournament.slug, stage.order, group.number, *args])


def upload(text: str, name: str = "results.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


# ---------------------------------------------------------------------------
# The API: 202, the job's address, its outcome
# ---------------------------------------------------------------------------


def test_a_big_csv_is_imported_by_a_job_followed_at_its_address(
    world, django_capture_on_commit_callbacks
):
    td, group = world.users["td"], world.group
    games = games_of(group)
    client = api_client(td)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(group_api(group), csv_file(games), content_type="text/csv")
    assert answer.status_code == 202, answer.content
    body = answer.json()
    job = ResultImportJob.objects.get()
    assert body["url"] == answer["Location"] == f"/api/results-import-jobs/{job.pk}/"
    assert ResultImportJobStartedSerializer(data=body).is_valid()
    assert (body["group"], body["format"], body["dry_run"]) == (group.pk, "csv", False)

    followed = client.get(body["url"])
    assert followed.status_code == 200
    progress = followed.json()
    assert ResultImportJobSerializer(data=progress).is_valid()
    assert progress["status"] == "succeeded" and progress["finished"]
    assert progress["percent"] == 100
    assert progress["games"] == len(games)
    result = progress["result"]
    assert (result["applied"], result["results"], result["unchanged"]) == (
        len(games),
        len(games),
        0,
    )
    assert [r for r, _v in results(group)] == ["1-0"] * len(games)
    job.refresh_from_db()
    assert job.text == ""  # the file is let go once applied
    event = AuditEvent.objects.get(action=Action.RESULTS_IMPORTED)
    assert event.data["job"] == job.pk
    assert AuditEvent.objects.filter(action=Action.RESULTS_IMPORT_STARTED).count() == 1


def test_a_stage_pgn_import_runs_as_a_job_too(world, django_capture_on_commit_callbacks):
    organizer, stage = world.users["organizer"], world.stage
    games = list(
        Game.objects.filter(group__stage=stage).select_related("white", "black").order_by("pk")
    )
    client = api_client(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(stage_api(stage), {"pgn": pgn_file(games)}, format="json")
    assert answer.status_code == 202, answer.content
    progress = client.get(answer["Location"]).json()
    assert progress["group"] is None and progress["format"] == "pgn"
    assert progress["status"] == "succeeded"
    assert progress["result"]["applied"] == len(games)
    assert set(Game.objects.filter(group__stage=stage).values_list("result", flat=True)) == {"0-1"}
    assert all(g.pgn for g in Game.objects.filter(group__stage=stage))


def test_a_dry_run_job_answers_what_the_import_would_do_and_writes_nothing(
    world, django_capture_on_commit_callbacks
):
    td, group = world.users["td"], world.group
    games = games_of(group)
    before = results(group)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client(td).post(
            group_api(group, "?dry_run=1"), csv_file(games), content_type="text/csv"
        )
    assert answer.status_code == 202
    progress = api_client(td).get(answer["Location"]).json()
    assert progress["status"] == "succeeded" and progress["dry_run"]
    assert progress["result"]["applied"] == len(games)
    assert progress["result"]["dry_run"] is True
    assert results(group) == before
    assert not AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).exists()


def test_small_files_are_still_imported_in_the_request(world, settings):
    settings.RESULT_IMPORT_JOB_CHARS = 1_000_000
    td, group = world.users["td"], world.group
    games = games_of(group)
    answer = api_client(td).post(group_api(group), csv_file(games[:2]), content_type="text/csv")
    assert answer.status_code == 200
    assert answer.json()["applied"] == 2
    assert not ResultImportJob.objects.exists()


def test_bad_lines_fail_the_job_listing_every_one_as_the_request_would(
    world, settings, django_capture_on_commit_callbacks
):
    td, group = world.users["td"], world.group
    games = games_of(group)
    rows = csv_file(games).splitlines()
    rows[2] = "NOBODY,ELSE,1-0,,"  # an unknown player, line 3
    rows[4] = f"{games[3].black.code},{games[3].white.code},1-0,,"  # colours swapped, line 5
    rows[6] = rows[6].replace("1-0", "2-0")  # not a result, line 7
    text = "\n".join(rows) + "\n"
    settings.RESULT_IMPORT_JOB_CHARS = 1_000_000
    with pytest.raises(ActionError) as in_request:
        import_results(td, group=group, text=text)
    settings.RESULT_IMPORT_JOB_CHARS = JOB_CHARS
    before = results(group)

    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client(td).post(group_api(group), text, content_type="text/csv")
    assert answer.status_code == 202
    progress = api_client(td).get(answer["Location"]).json()
    assert progress["status"] == "failed"
    assert progress["error"] == in_request.value.message
    assert progress["details"] == in_request.value.details
    assert sorted({d["line"] for d in progress["details"]}) == [3, 5, 7]
    assert results(group) == before
    job = ResultImportJob.objects.get()
    assert job.text == ""
    assert AuditEvent.objects.get(action=Action.RESULTS_IMPORT_FAILED).data["bad_lines"] == 3


# ---------------------------------------------------------------------------
# One import of a group or stage at a time
# ---------------------------------------------------------------------------


def test_a_second_import_while_one_waits_is_refused_with_409_and_a_sentence(world, no_worker):
    td, organizer, group = world.users["td"], world.users["organizer"], world.group
    other = Group.objects.get(stage=world.stage, number=2)
    text = csv_file(games_of(group))
    first = api_client(td).post(group_api(group), text, content_type="text/csv")
    assert first.status_code == 202 and first.json()["status"] == "pending"

    again = api_client(td).post(group_api(group), text, content_type="text/csv")
    assert again.status_code == 409
    body = again.json()
    assert body["code"] == "conflict"
    assert "A results import into group 1 is already waiting for a worker" in body["message"]
    assert "Wait for it to finish, then import again." in body["message"]
    # A small file in the request is refused too; its dry run is not.
    small = csv_file(games_of(group)[:1])
    assert len(small) <= JOB_CHARS
    assert api_client(td).post(group_api(group), small, content_type="text/csv").status_code == 409
    # The whole stage overlaps the group; another group does not.
    whole = api_client(organizer).post(stage_api(world.stage), text, content_type="text/csv")
    assert whole.status_code == 409
    other_text = csv_file(games_of(other))
    elsewhere = api_client(organizer).post(group_api(other), other_text, content_type="text/csv")
    assert elsewhere.status_code == 202
    assert ResultImportJob.objects.count() == 2


def test_a_request_import_is_refused_while_a_job_runs_but_its_dry_run_is_not(
    world, no_worker, settings
):
    td, group = world.users["td"], world.group
    games = games_of(group)
    import_jobs.start_import(td, group=group, text=csv_file(games))
    settings.RESULT_IMPORT_JOB_CHARS = 1_000_000
    with pytest.raises(ActionError) as refused:
        import_results(td, group=group, text=csv_file(games[:1]))
    assert refused.value.code == ErrorCode.CONFLICT
    assert import_results(td, group=group, text=csv_file(games[:1]), dry_run=True).applied == 1


def test_a_stage_job_refuses_every_group_import_of_the_stage(world, no_worker):
    organizer, group = world.users["organizer"], world.group
    import_jobs.start_import(organizer, stage=world.stage, text=csv_file(games_of(group)))
    answer = api_client(world.users["td"]).post(
        group_api(group), csv_file(games_of(group)), content_type="text/csv"
    )
    assert answer.status_code == 409
    assert "A results import into the whole stage is already" in answer.json()["message"]


def test_the_database_holds_one_unfinished_job_per_group_and_per_stage(world):
    stage, group = world.stage, world.group
    ResultImportJob.objects.create(stage=stage, group=group, file_format="csv")
    with pytest.raises(IntegrityError), transaction.atomic():
        ResultImportJob.objects.create(stage=stage, group=group, file_format="csv")
    ResultImportJob.objects.create(stage=stage, group=None, file_format="csv")
    with pytest.raises(IntegrityError), transaction.atomic():
        ResultImportJob.objects.create(stage=stage, group=None, file_format="pgn")
    finished = ResultImportJob.Status.SUCCEEDED
    ResultImportJob.objects.update(status=finished)
    ResultImportJob.objects.create(stage=stage, group=group, file_format="csv")


# ---------------------------------------------------------------------------
# A killed worker, a task delivered twice
# ---------------------------------------------------------------------------


class WorkerKilled(BaseException):
    """What a killed worker looks like from inside: the run stops, nothing more of it runs
    (a BaseException: no ``except Exception`` of the code catches it)."""


def test_a_job_killed_midway_runs_again_and_applies_the_file_once(world, no_worker, monkeypatch):
    td, group = world.users["td"], world.group
    games = games_of(group)
    job = import_jobs.start_import(td, group=group, text=pgn_file(games))
    before = results(group)

    written = []

    def killed(group_ids):  # after the games are written, inside the transaction
        written.append(Game.objects.filter(group=group, result="0-1").count())
        raise WorkerKilled

    monkeypatch.setattr(imports, "schedule_recomputes", killed)
    with pytest.raises(WorkerKilled):
        import_jobs.run_import(job.pk)
    assert written == [len(games)]  # it had written them …
    assert results(group) == before  # … and they were rolled back with the transaction
    job.refresh_from_db()
    assert job.status == ResultImportJob.Status.RUNNING and job.text  # as a lost job shows
    monkeypatch.undo()

    assert import_jobs.run_import(job.pk) == ResultImportJob.Status.SUCCEEDED
    after = results(group)
    assert after == [("0-1", version + 1) for _r, version in before]
    assert AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).count() == 1
    # one event, one ResultChange row per game
    assert ResultChange.objects.count() == len(games)

    # Delivered once more (the broker handed it back, the sweep queued it): nothing more.
    assert import_jobs.run_import(job.pk) == "finished"
    assert results(group) == after
    assert AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).count() == 1
    # The same file imported again: every game unchanged.
    again = import_jobs.start_import(td, group=group, text=pgn_file(games))
    assert import_jobs.run_import(again.pk) == ResultImportJob.Status.SUCCEEDED
    again.refresh_from_db()
    assert (again.result["applied"], again.result["unchanged"]) == (0, len(games))
    assert results(group) == after


def test_a_lost_job_is_queued_again_by_the_sweep(world, no_worker):
    td, group = world.users["td"], world.group
    job = import_jobs.start_import(td, group=group, text=csv_file(games_of(group)))
    queued = no_worker  # (the test's transaction never commits: nothing queued yet)
    assert queued == []
    assert tasks.resume_stalled_result_imports() == {"resumed": 0, "stopped": 0}
    quiet = timezone.now() - ResultImportJob.RESUME_AFTER - timedelta(seconds=1)
    ResultImportJob.objects.filter(pk=job.pk).update(
        status=ResultImportJob.Status.RUNNING, updated_at=quiet
    )
    assert tasks.resume_stalled_result_imports() == {"resumed": 1, "stopped": 0}
    assert queued == [job.pk]
    # past its time limit: stopped with the reason, and the group is free again
    ResultImportJob.objects.filter(pk=job.pk).update(
        created_at=timezone.now() - ResultImportJob.TIME_LIMIT - timedelta(seconds=1)
    )
    assert tasks.resume_stalled_result_imports() == {"resumed": 0, "stopped": 1}
    job.refresh_from_db()
    assert job.status == ResultImportJob.Status.FAILED
    assert "did not finish within 60 minutes" in job.error
    import_jobs.start_import(td, group=group, text=csv_file(games_of(group)))


def test_a_lost_job_past_its_time_limit_is_stopped_when_the_next_import_starts(world, no_worker):
    td, group = world.users["td"], world.group
    lost = import_jobs.start_import(td, group=group, text=csv_file(games_of(group)))
    with pytest.raises(ActionError):
        import_jobs.start_import(td, group=group, text=csv_file(games_of(group)))
    ResultImportJob.objects.filter(pk=lost.pk).update(
        status=ResultImportJob.Status.RUNNING,
        created_at=timezone.now() - ResultImportJob.TIME_LIMIT - timedelta(seconds=1),
    )
    import_jobs.start_import(td, group=group, text=csv_file(games_of(group)))
    lost.refresh_from_db()
    assert lost.status == ResultImportJob.Status.FAILED
    assert AuditEvent.objects.filter(action=Action.RESULTS_IMPORT_FAILED).count() == 1


def test_an_error_in_the_task_fails_the_job(world, no_worker, monkeypatch):
    td, group = world.users["td"], world.group
    job = import_jobs.start_import(td, group=group, text=csv_file(games_of(group)))

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(import_jobs, "_finish", broken)
    # Run as a worker runs it (an error fails the task, which calls its failure hook).
    result = tasks.run_result_import.apply((job.pk,), throw=False)
    assert result.failed() and isinstance(result.result, RuntimeError)
    job.refresh_from_db()
    assert job.status == ResultImportJob.Status.FAILED
    assert job.error.startswith("The results import stopped on an error")


def test_the_progress_counts_the_lines_and_then_the_writing(world, no_worker, monkeypatch):
    td, group = world.users["td"], world.group
    games = games_of(group)
    job = import_jobs.start_import(td, group=group, text=pgn_file(games))
    assert job.total_lines == 9 * len(games)
    seen = []
    count = import_jobs._count

    def watched(job_id, **values):
        count(job_id, **values)
        seen.append(import_jobs.job_progress(ResultImportJob.objects.get(pk=job_id)))

    monkeypatch.setattr(import_jobs, "_count", watched)
    import_jobs.run_import(job.pk)
    reading = [p for p in seen if p["phase"] == "checking"]
    assert [p["games"] for p in reading] == list(range(3, len(games) + 1, 3))
    assert all(p["status"] == "running" for p in seen)
    percents = [p["percent"] for p in seen]
    assert percents == sorted(percents) and 0 < percents[0] < import_jobs.CHECKED_PERCENT
    assert seen[-1]["phase"] == "saving" and seen[-1]["percent"] == import_jobs.SAVING_PERCENT


# ---------------------------------------------------------------------------
# Who sees a job
# ---------------------------------------------------------------------------


def test_a_group_job_is_its_td_and_the_organizers_only(world, no_worker):
    group = world.group
    job = import_jobs.start_import(world.users["td"], group=group, text=csv_file(games_of(group)))
    url = import_jobs.api_url(job)
    assert api_client(world.users["td"]).get(url).status_code == 200
    assert api_client(world.users["organizer"]).get(url).status_code == 200
    assert api_client(world.users["other_td"]).get(url).status_code == 403
    assert api_client(world.users["player"]).get(url).status_code == 403
    assert api_client().get(url).status_code in (401, 403)
    assert api_client(world.users["td"]).get("/api/results-import-jobs/99999/").status_code == 404


def test_a_stage_job_is_the_organizers_only(world, no_worker):
    job = import_jobs.start_import(
        world.users["organizer"], stage=world.stage, text=csv_file(games_of(world.group))
    )
    url = import_jobs.api_url(job)
    assert api_client(world.users["organizer"]).get(url).status_code == 200
    assert api_client(world.users["td"]).get(url).status_code == 403


# ---------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------


def test_the_page_flow_upload_progress_preview_confirm_imported(
    world, client, django_capture_on_commit_callbacks
):
    td, group = world.users["td"], world.group
    games = games_of(group)
    client.force_login(td)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            page(group, "group-results-import"), {"file": upload(pgn_file(games), "r.pgn")}
        )
    preview = ResultImportJob.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == page(group, "group-results-import-job", preview.pk)
    shown = client.get(answer["Location"]).content.decode()
    assert 'id="import-preview"' in shown
    assert f'id="count-results">{len(games)}<' in shown
    assert f"Confirm: import {len(games)} games" in shown
    assert 'id="results-import-progress"' in shown and 'value="100"' in shown
    assert [r for r, _v in results(group)] == [""] * len(games)

    with django_capture_on_commit_callbacks(execute=True):
        confirmed = client.post(page(group, "group-results-import-job-confirm", preview.pk))
    job = ResultImportJob.objects.exclude(pk=preview.pk).get()
    assert job.preview_id == preview.pk and not job.dry_run
    assert confirmed["Location"] == page(group, "group-results-import-job", job.pk)
    done = client.get(confirmed["Location"]).content.decode()
    assert 'id="imported"' in done
    assert f"Imported: {len(games)} games changed, 0 unchanged." in done
    assert f'href="{page(group, "group-results")}"' in done
    assert [r for r, _v in results(group)] == ["0-1"] * len(games)
    # the preview is confirmed once
    assert (
        "This preview was confirmed."
        in client.get(page(group, "group-results-import-job", preview.pk)).content.decode()
    )
    again = client.post(page(group, "group-results-import-job-confirm", preview.pk))
    assert ResultImportJob.objects.count() == 2
    assert again["Location"] == page(group, "group-results-import-job", preview.pk)


def test_the_page_of_a_failed_job_lists_every_bad_line(
    world, client, django_capture_on_commit_callbacks
):
    td, group = world.users["td"], world.group
    games = games_of(group)
    text = csv_file(games).replace(games[1].white.code + ",", "NOBODY,", 1)
    client.force_login(td)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(page(group, "group-results-import"), {"file": upload(text)})
    shown = client.get(answer["Location"]).content.decode()
    assert 'id="import-errors"' in shown
    assert "The file has 1 bad line; nothing was imported." in shown
    assert "unknown player NOBODY" in shown
    assert 'id="upload"' in shown


def test_a_running_job_shows_its_bar_and_a_second_upload_goes_to_it(world, client, no_worker):
    td, group = world.users["td"], world.group
    text = csv_file(games_of(group))
    client.force_login(td)
    first = client.post(page(group, "group-results-import"), {"file": upload(text)})
    shown = client.get(first["Location"]).content.decode()
    assert 'data-finished="false"' in shown and "Waiting for a worker to start" in shown
    assert "Refresh to see the progress." in shown
    second = client.post(page(group, "group-results-import"), {"file": upload(text)}, follow=True)
    assert second.redirect_chain[-1][0] == first["Location"]
    assert "A results import into group 1 is already waiting for a worker" in (
        second.content.decode()
    )
    assert ResultImportJob.objects.count() == 1


def test_the_stage_page_flow_runs_the_stage_import_as_a_job(
    world, client, django_capture_on_commit_callbacks
):
    organizer, stage = world.users["organizer"], world.stage
    games = games_of(world.group)
    client.force_login(organizer)
    url = reverse("stage-results-import", args=[stage.tournament.slug, stage.order])
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(url, {"file": upload(csv_file(games))})
    preview = ResultImportJob.objects.get()
    job_url = reverse(
        "stage-results-import-job", args=[stage.tournament.slug, stage.order, preview.pk]
    )
    assert answer["Location"] == job_url
    confirm = reverse(
        "stage-results-import-job-confirm", args=[stage.tournament.slug, stage.order, preview.pk]
    )
    with django_capture_on_commit_callbacks(execute=True):
        client.post(confirm)
    assert [r for r, _v in results(world.group)] == ["1-0"] * len(games)
    # a TD does not see a stage's job page
    client.force_login(world.users["td"])
    assert client.get(job_url).status_code == 403
