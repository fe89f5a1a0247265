"""A draw job's steps repeated or failing half-way, in this process (no worker): a retry writes
the draw once, and a failed finish leaves nothing of the new draw behind.

On PostgreSQL (CI) the games are written by one statement from the stored groups, and the
failure strikes once it ran, before the commit; elsewhere in the middle of their batched
inserts.
"""

import pytest
from django.db import OperationalError

from apps.groups.models import Game, Group, Seat
from apps.office import draw, tasks
from apps.office.services import start_draw
from apps.stages.models import DrawJob, Stage
from config.celery import app as celery_app
from tests.worlds.worker import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import assert_stage_holds, closed_stage, silli_draw, stored_draw

pytestmark = pytest.mark.django_db(transaction=True)

SEED = "Lotto 2026-11-21: 17 42 8 61 33"


class GamesBreakHalfWay:
    """Stands in for ``draw.insert_rows`` and ``draw.insert_select``: the games' insert fails
    (after ``after`` rows, or after its statement) the first ``times`` times; every insert is
    recorded."""

    def __init__(self, insert_rows, insert_select, *, after: int = 2_000, times: int = 1):
        self.insert_rows = insert_rows
        self.insert_select = insert_select
        self.after = after
        self.times = times
        self.inserted: list[str] = []

    def __call__(self, model, columns, rows) -> None:
        self.inserted.append(model.__name__)
        if model is Game and self.times:
            self.times -= 1
            rows = self._breaking(rows)
        self.insert_rows(model, columns, rows)

    def select(self, model, columns, select, params=()) -> int:
        if model is not Group:  # recorded as on SQLite, where the groups are a bulk_create
            self.inserted.append(model.__name__)
        written = self.insert_select(model, columns, select, params)
        if model is Game and self.times:
            self.times -= 1
            raise OperationalError("the connection broke in the middle of the games")
        return written

    def _breaking(self, rows):
        for i, row in enumerate(rows):
            if i == self.after:
                raise OperationalError("the connection broke in the middle of the games")
            yield row


@pytest.fixture
def games_break(monkeypatch):
    def install(**kwargs) -> GamesBreakHalfWay:
        breaker = GamesBreakHalfWay(draw.insert_rows, draw.insert_select, **kwargs)
        monkeypatch.setattr(draw, "insert_rows", breaker)
        monkeypatch.setattr(draw, "insert_select", breaker.select)
        return breaker

    return install


def test_a_finish_that_fails_half_way_writes_nothing_and_its_retry_writes_the_draw_once(
    organizer, monkeypatch, games_break
):
    stage = closed_stage(organizer, 1_000)
    # This test runs the job's steps itself, in the order the tasks would.
    monkeypatch.setattr(tasks.run_draw, "delay", lambda job_id: None)
    job = start_draw(organizer, stage, SEED)
    numbers = draw.prepare(job.pk)
    assert numbers == list(range(1, 11))
    assert [draw.draw_one_group(job.pk, n) for n in numbers] == [False] * 9 + [True]

    # A group task or the division delivered twice changes nothing.
    group = job.group_results.get(number=4)
    assert draw.draw_one_group(job.pk, 4) is True
    assert job.group_results.get(number=4).payload == group.payload
    assert DrawJob.objects.get(pk=job.pk).done_groups == 10  # counted once
    assert draw.prepare(job.pk) == []

    breaker = games_break()
    with pytest.raises(OperationalError):
        draw.finish(job.pk)
    assert breaker.inserted == ["Seat", "Game"]  # the seats were written, then the games broke
    stage.refresh_from_db()
    assert stage.status == Stage.Status.REGISTRATION_CLOSED and stage.draw_digest == ""
    assert not Group.objects.filter(stage=stage).exists()
    assert not Seat.objects.filter(stage=stage).exists()
    assert not Game.objects.filter(group__stage=stage).exists()
    job.refresh_from_db()
    assert job.status == DrawJob.Status.RUNNING and job.done_groups == 10

    assert draw.finish(job.pk) is True  # the retry
    assert draw.finish(job.pk) is False  # a finish delivered twice
    assert draw.draw_one_group(job.pk, 4) is False  # a late group task
    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED
    expected = silli_draw(stage, SEED)
    assert job.digest == expected.digest
    assert_stage_holds(stage, expected)
    assert [len(rows) for rows in stored_draw(stage)] == [10, 1_000, 5_000]


def test_celery_retries_a_finish_that_failed_on_the_database_and_the_draw_is_written_once(
    organizer, monkeypatch, games_break
):
    stage = closed_stage(organizer, 1_000)
    breaker = games_break(times=2)
    # Tasks run in this process; an exception that propagated would bypass Celery's retry.
    monkeypatch.setitem(celery_app.conf, "task_eager_propagates", False)

    job = start_draw(organizer, stage, SEED)

    # The division, two finishes that failed half-way, and the one that wrote the draw.
    assert breaker.inserted == ["DrawJobGroup"] + ["Seat", "Game"] * 3
    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    expected = silli_draw(stage, SEED)
    assert job.digest == expected.digest
    assert_stage_holds(stage, expected)


def test_a_finish_that_keeps_failing_fails_the_job_and_the_organizer_draws_again(
    organizer, monkeypatch, games_break
):
    stage = closed_stage(organizer, 1_000)
    games_break(times=1 + tasks.finish_draw.max_retries)
    monkeypatch.setitem(celery_app.conf, "task_eager_propagates", False)

    job = start_draw(organizer, stage, SEED)

    job.refresh_from_db()
    assert job.status == DrawJob.Status.FAILED
    assert "the connection broke in the middle of the games" in job.error
    assert stored_draw(stage) == ([], [], [])
    stage.refresh_from_db()
    assert stage.status == Stage.Status.REGISTRATION_CLOSED

    retry = start_draw(organizer, stage, SEED)

    retry.refresh_from_db()
    assert retry.status == DrawJob.Status.SUCCEEDED, retry.error
    assert_stage_holds(stage, silli_draw(stage, SEED))
