"""The draw job's group tasks take batches of groups: each batch is counted once on the job
(the progress bar moves a batch at a time), a batch delivered again or overlapping another
changes nothing twice, and the draw is the engine's, byte for byte."""

import json

import pytest
from django.db import connection

from apps.groups.models import Group
from apps.office import draw, tasks
from apps.office.services import start_draw
from apps.silli.draw import DrawError
from apps.stages.models import DrawJob, Stage
from tests.worlds.worker import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import assert_stage_holds, closed_stage, silli_draw

pytestmark = pytest.mark.django_db(transaction=True)

SEED = "Lotto 2026-11-21: 17 42 8 61 33"


@pytest.mark.parametrize(
    ("groups", "sizes"),
    [
        (0, []),
        (1, [1]),
        (10, [2] * 5),
        (60, [8] * 7 + [4]),
        (200, [25] * 8),
        (1_000, [25] * 40),
        (1_001, [25] * 40 + [1]),
    ],
)
def test_batches_hold_every_group_once_in_order(groups, sizes):
    numbers = list(range(1, groups + 1))
    cut = draw.batches(numbers)
    assert [len(batch) for batch in cut] == sizes
    assert [n for batch in cut for n in batch] == numbers
    assert all(len(batch) <= draw.GROUPS_PER_TASK for batch in cut)


def test_batches_delivered_again_or_overlapping_are_counted_once(organizer, monkeypatch):
    stage = closed_stage(organizer, 1_000)
    monkeypatch.setattr(tasks.run_draw, "delay", lambda job_id: None)
    job = start_draw(organizer, stage, SEED)
    numbers = draw.prepare(job.pk)
    assert numbers == list(range(1, 11))

    def done() -> int:
        return DrawJob.objects.get(pk=job.pk).done_groups

    assert draw.draw_groups(job.pk, [1, 2, 3]) is False
    assert done() == 3  # one count for the batch
    stored = dict(job.group_results.values_list("number", "payload"))
    assert draw.draw_groups(job.pk, [1, 2, 3]) is False  # delivered again
    assert done() == 3
    assert draw.draw_groups(job.pk, [3, 4]) is False  # overlapping: only 4 is new
    assert draw.draw_one_group(job.pk, 2) is False  # a one-group task of an earlier version
    assert done() == 4
    after = dict(job.group_results.values_list("number", "payload"))
    assert {n: after[n] for n in (1, 2, 3)} == {n: stored[n] for n in (1, 2, 3)}

    assert draw.draw_groups(job.pk, [5, 6, 7, 8, 9]) is False
    assert draw.draw_groups(job.pk, [10]) is True
    assert done() == 10
    assert draw.draw_groups(job.pk, [9, 10]) is True  # a repeat still sends the finish
    assert done() == 10
    assert draw.finish(job.pk) is True
    assert draw.draw_groups(job.pk, [1, 2]) is False  # late, after the finish
    assert_stage_holds(stage, silli_draw(stage, SEED))


def test_a_batch_of_a_cancelled_job_stores_nothing(organizer, monkeypatch):
    stage = closed_stage(organizer, 1_000)
    monkeypatch.setattr(tasks.run_draw, "delay", lambda job_id: None)
    job = start_draw(organizer, stage, SEED)
    draw.prepare(job.pk)
    DrawJob.fail(job.pk, "Cancelled")
    assert draw.draw_groups(job.pk, [1, 2, 3]) is False
    assert not job.group_results.filter(payload__isnull=False).exists()
    assert DrawJob.objects.get(pk=job.pk).done_groups == 0


def test_the_in_process_job_draws_in_batches_and_writes_the_engines_draw(organizer, monkeypatch):
    sent: list[list[int]] = []
    batch_task = tasks.draw_groups.delay

    def record(job_id, numbers):
        sent.append(list(numbers))
        return batch_task(job_id, numbers)

    monkeypatch.setattr(tasks.draw_groups, "delay", record)
    stage = closed_stage(organizer, 1_000)

    job = start_draw(organizer, stage, SEED)

    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    assert sent == draw.batches(list(range(1, 11)))
    assert job.done_groups == job.total_groups == 10
    assert_stage_holds(stage, silli_draw(stage, SEED))


def test_groups_stored_without_their_rows_are_staged_by_the_finish(organizer, monkeypatch):
    """Groups drawn by the group tasks of an earlier version have their text but not the
    rows the finish writes (PostgreSQL): the finish stages them from the text, and the draw
    is still the engine's; the staged rows are cleared with the members once written."""
    stage = closed_stage(organizer, 1_000)
    monkeypatch.setattr(tasks.run_draw, "delay", lambda job_id: None)
    job = start_draw(organizer, stage, SEED)
    numbers = draw.prepare(job.pk)
    assert draw.draw_groups(job.pk, numbers) is True
    job.group_results.filter(number__in=[2, 7]).update(**dict.fromkeys(draw.STAGED))

    assert draw.finish(job.pk) is True

    assert_stage_holds(stage, silli_draw(stage, SEED))
    assert not job.group_results.filter(seat_entrants__isnull=False).exists()


def seated_job(organizer, monkeypatch) -> tuple[Stage, DrawJob]:
    """A draw job of 1,000 entrants whose groups are all seated, its finish not sent."""
    stage = closed_stage(organizer, 1_000)
    monkeypatch.setattr(tasks.run_draw, "delay", lambda job_id: None)
    job = start_draw(organizer, stage, SEED)
    assert draw.draw_groups(job.pk, draw.prepare(job.pk)) is True
    return stage, job


def test_a_group_seating_a_stranger_stops_the_finish_and_writes_nothing(organizer, monkeypatch):
    stage, job = seated_job(organizer, monkeypatch)
    group = job.group_results.get(number=3)
    for column in draw.STAGED:
        setattr(group, column, None)
    payload = json.loads(group.payload)
    payload["seats"][0]["entrant"] = "NOBODY"
    group.payload = draw.canonical_json(payload)
    group.save(update_fields=["payload", *draw.STAGED])  # the rows staged from it: none

    with pytest.raises(DrawError, match="1 seated entrants are not the tournament's"):
        draw.finish(job.pk)

    assert not Group.objects.filter(stage=stage).exists()
    assert DrawJob.objects.get(pk=job.pk).status == DrawJob.Status.RUNNING


@pytest.mark.skipif(connection.vendor != "postgresql", reason="rows are staged on PostgreSQL")
def test_a_staged_seat_of_another_tournament_stops_the_finish_and_writes_nothing(
    organizer, monkeypatch
):
    """Seats have no database-level keys: the finish checks their entrants itself."""
    stage, job = seated_job(organizer, monkeypatch)
    group = job.group_results.get(number=3)
    entrants = group.seat_entrants.strip("{}").split(",")
    group.seat_entrants = "{" + ",".join(["0", *entrants[1:]]) + "}"
    group.save(update_fields=["seat_entrants"])

    with pytest.raises(DrawError, match="1 seated entrants are not the tournament's"):
        draw.finish(job.pk)

    assert not Group.objects.filter(stage=stage).exists()
    assert DrawJob.objects.get(pk=job.pk).status == DrawJob.Status.RUNNING


def test_a_job_divided_without_the_entrants_ids_reads_them_in_its_group_tasks(
    organizer, monkeypatch
):
    """A job divided by an earlier version has members without their ids: the group tasks
    read them, and the draw is the engine's."""
    stage = closed_stage(organizer, 1_000)
    monkeypatch.setattr(tasks.run_draw, "delay", lambda job_id: None)
    job = start_draw(organizer, stage, SEED)
    numbers = draw.prepare(job.pk)
    for group in job.group_results.all():
        members = group.members
        members["entrants"] = [fields[: draw.ENGINE_FIELDS] for fields in members["entrants"]]
        group.save(update_fields=["members"])
    assert draw.draw_groups(job.pk, numbers[:4]) is False
    assert draw.draw_groups(job.pk, numbers[4:]) is True
    assert draw.finish(job.pk) is True
    assert_stage_holds(stage, silli_draw(stage, SEED))
