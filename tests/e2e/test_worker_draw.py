"""The draw job on a real Celery worker process, with Redis and PostgreSQL, end to end."""

import os
import signal
from datetime import timedelta

import pytest
from django.db.models import F

from apps.core.errors import ActionError, ErrorCode
from apps.office import draw, tasks
from apps.office.services import start_draw
from apps.stages.models import DrawJob
from tests.worlds.worker import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import (
    assert_stage_holds,
    closed_stage,
    finished,
    silli_draw,
    stage_row_locked,
    stored_draw,
    wait_until,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

SEED = "Lotto 2026-11-21: 17 42 8 61 33"
TASK = "apps.office.tasks."


def test_a_worker_runs_the_whole_draw_job_and_stores_the_digest_of_silli_draw(
    organizer, start_worker
):
    stage = closed_stage(organizer, 1_000)
    worker = start_worker()

    job = finished(start_draw(organizer, stage, SEED), worker.output)

    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    expected = silli_draw(stage, SEED)
    assert job.digest == expected.digest
    assert_stage_holds(stage, expected)
    groups, seats, games = stored_draw(stage)
    assert (len(groups), len(seats), len(games)) == (10, 1_000, 5_000)
    # The worker, not this process, ran the division, each batch of groups and the finish.
    # Two group tasks ending together may both send a finish; the second one writes nothing.
    executed = worker.executed()
    assert executed[TASK + "run_draw"] == 1
    assert executed[TASK + "draw_groups"] == len(draw.batches(list(range(1, 11)))) == 5
    assert TASK + "draw_group" not in executed
    assert executed[TASK + "finish_draw"] in (1, 2)


def test_a_pool_process_killed_while_writing_the_draw_has_its_task_delivered_again(
    organizer, start_worker
):
    """acks_late + reject_on_worker_lost: a task whose pool process dies is not acknowledged;
    the worker puts it back on the queue, another process runs it, and the draw is written
    once.

    The finish is held at the stage's row lock (taken by this test) after it has locked the
    job, so the process is killed in the middle of the finish's transaction, every time.
    """
    stage = closed_stage(organizer, 1_000)
    job = start_draw(organizer, stage, SEED)

    with stage_row_locked(stage):
        worker = start_worker()

        def finishing() -> dict[str, int]:
            active = worker.active()
            return {t["id"]: t["worker_pid"] for t in active if t["name"] == TASK + "finish_draw"}

        killed = wait_until("the finish waits for the stage", finishing, explain=worker.output)
        job.refresh_from_db()
        assert job.status == DrawJob.Status.RUNNING
        assert job.done_groups == job.total_groups == 10
        for pid in killed.values():
            os.kill(pid, signal.SIGKILL)

        def delivered_again() -> bool:
            return any(
                t["id"] in killed and t["worker_pid"] not in killed.values()
                for t in worker.active()
            )

        wait_until("the killed finish runs again", delivered_again, explain=worker.output)
        stage.refresh_from_db()
        assert stage.draw_digest == "" and not stage.groups.exists()

    job = finished(job, worker.output)
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    assert_stage_holds(stage, silli_draw(stage, SEED))


def test_a_worker_killed_in_the_middle_leaves_the_previous_draw_and_the_job_resumes(
    organizer, start_worker
):
    """The whole worker dies (SIGKILL to it and its pool processes, as in a crash) while the
    group tasks of a redraw run. What the system guarantees, and this test shows:

    - the stage's tables keep the previous draw untouched: group tasks write only their job's
      rows, and only the finish writes the tables, in one transaction;
    - a second "start the draw" meanwhile is refused (409): one job per stage at a time;
    - the job goes on by itself: the periodic sweep (beat, every minute) queues the remaining
      steps of a job not heard from for two minutes, and a new worker completes it with the
      digest of silli_draw, every game once;
    - the killed worker's tasks, delivered again late (Redis redelivers unacknowledged tasks
      after its visibility timeout), find the job finished and change nothing.
    """
    stage = closed_stage(organizer, 6_000)
    worker = start_worker()
    first = finished(start_draw(organizer, stage, "first seed"), worker.output)
    assert first.status == DrawJob.Status.SUCCEEDED, first.error
    previous = stored_draw(stage)

    job = start_draw(organizer, stage, SEED)
    wait_until(
        "a group is drawn",
        lambda: DrawJob.objects.get(pk=job.pk).done_groups > 0,
        every=0.005,
    )
    worker.kill()

    job.refresh_from_db()
    assert 0 < job.done_groups < job.total_groups == 60
    assert job.status == DrawJob.Status.RUNNING
    stage.refresh_from_db()
    assert (stage.seed, stage.draw_digest) == ("first seed", first.digest)
    assert stored_draw(stage) == previous
    with pytest.raises(ActionError) as refused:
        start_draw(organizer, stage, SEED)
    assert refused.value.code == ErrorCode.CONFLICT

    # Two minutes later (here: its last heartbeat moved back) the sweep resumes it, and a new
    # worker completes it.
    DrawJob.objects.filter(pk=job.pk).update(updated_at=F("updated_at") - timedelta(minutes=3))
    assert tasks.resume_stalled_draws() == {"resumed": 1, "stopped": 0}
    worker = start_worker()
    job = finished(job, worker.output)
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    expected = silli_draw(stage, SEED)
    assert job.digest == expected.digest
    assert_stage_holds(stage, expected)

    # The killed worker's tasks, delivered at last (run here rather than waiting).
    for number in range(1, job.total_groups + 1):
        assert draw.draw_one_group(job.pk, number) is False
    assert draw.finish(job.pk) is False
    assert_stage_holds(stage, expected)
