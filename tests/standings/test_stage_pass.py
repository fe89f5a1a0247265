"""Every group of a stage recomputed in one pass (groups.recompute_stage, the stage task): the
same rows as one recompute per group, every mark settled, a change made meanwhile not lost,
the per-group recompute waiting for it; and many groups queued at once go to it. Runs on
SQLite (one recompute per group) and PostgreSQL (the set-based pass), tasks captured."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group
from apps.results.services import enter_result, withdraw_entrant
from apps.standings import freshness
from apps.standings import groups as group_standings
from apps.standings.models import GroupStanding, StandingsMark
from apps.standings.tasks import recompute_stage_standings
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.healing import mark, open_games, up_to_date

pytestmark = pytest.mark.django_db(transaction=True)

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "1/2-1/2", "1-0"]


def snapshot(stage) -> list[tuple]:
    """Every stored row of the stage's groups, every column but the key."""
    return list(
        GroupStanding.objects.filter(group__stage=stage)
        .order_by("group_id", "position")
        .values_list(
            "group_id",
            "entrant_id",
            "seat",
            "position",
            "place",
            "points",
            "finished",
            "scheduled",
            "withdrawn",
            "figures",
        )
    )


def play(user, stage, every: int, offset: int = 0) -> None:
    """Results (played, forfeits, a double forfeit) in every ``every``-th open game."""
    for group in Group.objects.filter(stage=stage).order_by("pk"):
        for i, game in enumerate(open_games(group)[offset::every]):
            enter_result(user, game, RESULTS[i % len(RESULTS)], expected_version=game.version)


@pytest.fixture
def stage_queued(monkeypatch) -> list[int]:
    """Stage passes are recorded instead of sent (or run): the stages, in order."""
    sent: list[int] = []
    monkeypatch.setattr(
        recompute_stage_standings, "apply_async", lambda args, countdown: sent.append(args[0])
    )
    return sent


def test_the_pass_stores_what_a_recompute_per_group_stores_and_settles_every_mark(
    organizer, published_stage, queued
):
    stage = published_stage
    play(organizer, stage, every=3)
    entry = StageEntry.objects.filter(stage=stage).order_by("pk").first()
    withdraw_entrant(organizer, entry, "moved abroad")  # forfeits, and a withdrawn row
    groups = list(Group.objects.filter(stage=stage).order_by("pk").values_list("pk", flat=True))
    assert StandingsMark.objects.filter(pending_since__isnull=False).count() == len(groups)

    assert group_standings.recompute_stage(stage.pk, only_if_pending=True) == len(groups)
    by_pass = snapshot(stage)
    assert not StandingsMark.objects.filter(pending_since__isnull=False).exists()
    assert not Group.objects.filter(stage=stage, standings_pending=True).exists()
    assert all(up_to_date(Group.objects.get(pk=pk)) for pk in groups)
    assert any(row[8] for row in by_pass)  # the withdrawal is stored

    GroupStanding.objects.filter(group__stage=stage).delete()
    for pk in groups:
        group_standings.recompute_group(pk)
    assert snapshot(stage) == by_pass

    # Rows in place, positions changing: the pass updates, deletes and inserts.
    play(organizer, stage, every=2, offset=1)
    assert group_standings.recompute_stage(stage.pk) == len(groups)
    by_pass = snapshot(stage)
    for pk in groups:
        group_standings.recompute_group(pk)
    assert snapshot(stage) == by_pass
    # Nothing pending: the task's pass does nothing.
    assert group_standings.recompute_stage(stage.pk, only_if_pending=True) == 0
    assert recompute_stage_standings.run(stage.pk) == 0


def test_the_pass_recomputes_only_the_pending_groups(organizer, published_stage, queued):
    one, two = Group.objects.filter(stage=published_stage).order_by("number")
    game = open_games(one)[0]
    enter_result(organizer, game, "1-0", expected_version=game.version)
    untouched = list(GroupStanding.objects.filter(group=two).values_list("pk", "figures"))
    assert group_standings.recompute_stage(published_stage.pk, only_if_pending=True) == 1
    assert up_to_date(one) and up_to_date(two)
    assert list(GroupStanding.objects.filter(group=two).values_list("pk", "figures")) == untouched


@pytest.mark.postgres
def test_a_result_entered_during_the_pass_keeps_its_mark_and_is_recomputed(
    organizer, group, queued, monkeypatch
):
    """No lost update: the pass computed the group from what it read before the result;
    clearing the mark would leave the result uncounted until some other change."""
    first, during = open_games(group)[:2]
    before = mark(group).changes
    enter_result(organizer, first, "1-0", expected_version=first.version)
    table_of = group_standings.table_of
    entered: list[object] = []

    def enter_meanwhile(g: Group, read, fallback=None):
        if g.pk == group.pk and not entered:
            # Another connection enters a result and commits while the pass is running.
            def other() -> None:
                try:
                    entered.append(
                        enter_result(organizer, during, "0-1", expected_version=during.version)
                    )
                finally:
                    connection.close()

            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
        return table_of(g, read, fallback)

    monkeypatch.setattr(group_standings, "table_of", enter_meanwhile)
    queued.clear()
    group_standings.recompute_stage(group.stage_id, only_if_pending=True)
    assert isinstance(entered[0], Game)

    kept = mark(group)
    assert kept.pending_since is not None and kept.changes == before + 2
    assert Group.objects.get(pk=group.pk).standings_pending
    assert not up_to_date(group)
    assert group.pk in queued  # queued again (by the result, and by the pass)
    monkeypatch.undo()
    group_standings.recompute_if_pending(group.pk)
    assert up_to_date(group) and mark(group).pending_since is None  # with the result


@pytest.mark.postgres
def test_a_group_recompute_waits_for_the_pass_and_then_finds_nothing_to_do(
    organizer, group, queued, monkeypatch
):
    game = open_games(group)[0]
    enter_result(organizer, game, "1-0", expected_version=game.version)
    table_of = group_standings.table_of
    computing, go_on = threading.Event(), threading.Event()

    def paused(g: Group, read, fallback=None):
        computing.set()
        go_on.wait()
        return table_of(g, read, fallback)

    monkeypatch.setattr(group_standings, "table_of", paused)
    outcomes: dict[str, object] = {}

    def run(name: str, action) -> None:
        try:
            outcomes[name] = action()
        except Exception as exc:  # noqa: BLE001 - looked at below
            outcomes[name] = exc
        finally:
            connection.close()

    def the_pass() -> int:
        return group_standings.recompute_stage(group.stage_id, only_if_pending=True)

    stage_pass = threading.Thread(target=run, args=("pass", the_pass))
    stage_pass.start()
    computing.wait()
    one = threading.Thread(
        target=run, args=("one", lambda: group_standings.recompute_if_pending(group.pk))
    )
    one.start()
    # The group's recompute waits for the stage's standings lock (advisory, shared).
    with connection.cursor() as cursor:
        for _ in range(10_000):
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND classid = %s AND objid = %s",
                [freshness.STAGE_STANDINGS_LOCK, group.stage_id],
            )
            if cursor.fetchone()[0]:
                break
        else:
            pytest.fail("the group's recompute did not wait for the pass")
    assert "one" not in outcomes
    go_on.set()
    stage_pass.join()
    one.join()
    assert outcomes == {"pass": 1, "one": None}  # the pass cleared the mark it waited for
    assert up_to_date(group)


def test_many_groups_of_a_stage_queued_at_once_go_to_one_pass(
    organizer, published_stage, queued, stage_queued, settings
):
    groups = list(published_stage.groups.order_by("pk").values_list("pk", flat=True))
    settings.STANDINGS_STAGE_BATCH = len(groups)
    assert freshness.schedule_recomputes(groups) == groups
    assert (stage_queued, queued) == ([published_stage.pk], [])
    # The sweep too: many overdue groups of one stage, one pass.
    StandingsMark.objects.update(requested_at=None)
    settings.STANDINGS_STALE_SECONDS = 0
    assert freshness.GROUP_STANDINGS.sweep() == groups
    assert (stage_queued, queued) == ([published_stage.pk] * 2, [])
    assert recompute_stage_standings.run(published_stage.pk) == len(groups)
    assert not StandingsMark.objects.filter(pending_since__isnull=False).exists()

    # Fewer than the batch: a task each.
    settings.STANDINGS_STAGE_BATCH = len(groups) + 1
    assert freshness.schedule_recomputes(groups) == groups
    assert (stage_queued, queued) == ([published_stage.pk] * 2, groups)
