"""A big PGN results import as a job in a real worker, on PostgreSQL and Redis (issue 26,
item 3): the API answers 202 at once; the worker reads the file and then checks and writes
every result in one transaction. Killed while it writes (the test holds the groups' row
locks, so the kill lands inside that transaction), the worker leaves nothing: the job shows
"running" and no game changed. The sweep queues the job again, a new worker runs it from
its stored file, and every result is written once; the task delivered once more changes
nothing."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta

import psycopg
import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.core.audit import Action
from apps.core.models import AuditEvent, ResultChange
from apps.groups.models import Game, Group
from apps.results import tasks
from apps.results.models import ResultImportJob
from apps.stages.models import Stage
from tests.worlds.healing import (  # noqa: F401 (fixtures)
    drawn_stage,  # noqa: F401 (published_stage's fixture)
    organizer,
    published_stage,
)
from tests.worlds.worker import broker, database_url, start_worker, wait_until  # noqa: F401

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]


def pgn_file(stage: Stage) -> str:
    games = Game.objects.filter(group__stage=stage).select_related("white", "black")
    return "".join(
        f'[Event "Import Cup"]\n[White "{g.white.name}"]\n[Black "{g.black.name}"]\n'
        f'[Result "0-1"]\n[WhiteCode "{g.white.code}"]\n[BlackCode "{g.black.code}"]\n\n'
        "1. f3 e5 2. g4 Qh4# 0-1\n\n"
        for g in games.order_by("pk")
    )


@contextmanager
def groups_locked(stage: Stage):
    """Hold the stage's groups' row locks from another connection: the import's one
    transaction waits for them, after it has begun."""
    with psycopg.connect(database_url()) as other:
        table = Group._meta.db_table
        other.execute(f'SELECT 1 FROM "{table}" WHERE stage_id = %s FOR NO KEY UPDATE', [stage.pk])
        yield
        other.rollback()


def stage_results(stage: Stage) -> list[tuple]:
    return sorted(Game.objects.filter(group__stage=stage).values_list("pk", "result", "version"))


def test_a_pgn_import_job_killed_while_writing_runs_again_and_writes_every_result_once(
    organizer,  # noqa: F811
    published_stage,  # noqa: F811
    settings,
    broker,  # noqa: F811
    start_worker,  # noqa: F811
):
    stage = published_stage  # two groups of 30, 180 games
    settings.RESULT_IMPORT_JOB_CHARS = 1_000  # the file (about 35 kB) runs as a job
    text = pgn_file(stage)
    before = stage_results(stage)
    games = len(before)
    client = APIClient()
    client.force_authenticate(organizer)
    worker = start_worker(queues="celery")

    with groups_locked(stage):
        answer = client.post(
            f"/api/stages/{stage.pk}/results/import/", text, content_type="application/x-chess-pgn"
        )
        assert answer.status_code == 202, answer.content
        job = ResultImportJob.objects.get()
        assert answer["Location"] == f"/api/results-import-jobs/{job.pk}/"

        def writing() -> bool:
            return ResultImportJob.objects.get(pk=job.pk).phase == ResultImportJob.Phase.SAVING

        wait_until("the worker has read the file", writing, explain=worker.output)
        progress = client.get(answer["Location"]).json()
        assert progress["status"] == "running" and progress["games"] == games
        worker.kill()

    job.refresh_from_db()
    assert job.status == ResultImportJob.Status.RUNNING and job.text == text
    assert stage_results(stage) == before  # the killed transaction wrote nothing

    # The sweep finds the job quiet for RESUME_AFTER and queues it again; a new worker runs it.
    quiet = timezone.now() - ResultImportJob.RESUME_AFTER - timedelta(seconds=1)
    ResultImportJob.objects.filter(pk=job.pk).update(updated_at=quiet)
    worker = start_worker(queues="celery")
    assert tasks.resume_stalled_result_imports() == {"resumed": 1, "stopped": 0}

    def finished() -> ResultImportJob | None:
        found = ResultImportJob.objects.get(pk=job.pk)
        return found if found.finished else None

    done = wait_until("the job finishes", finished, explain=worker.output)
    assert done.status == ResultImportJob.Status.SUCCEEDED, done.error
    assert (done.result["applied"], done.result["unchanged"]) == (games, 0)
    after = stage_results(stage)
    assert after == [(pk, "0-1", version + 1) for pk, _result, version in before]
    assert AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).count() == 1
    # one event, one ResultChange row per game
    assert ResultChange.objects.count() == games
    final = client.get(answer["Location"]).json()
    assert final["status"] == "succeeded" and final["percent"] == 100

    # Delivered once more: the job has finished, nothing changes.
    ran = worker.executed().get("apps.results.tasks.run_result_import", 0)
    tasks.run_result_import.delay(job.pk)
    wait_until(
        "the task ran again",
        lambda: worker.ran("apps.results.tasks.run_result_import", ran + 1),
        explain=worker.output,
    )
    assert stage_results(stage) == after
    assert AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).count() == 1
