"""The "recompute pending" mark: set with every change, cleared only by a recompute that
counted every change marked before it began (no lost update), swept when it waits too long,
never a reason for a request to fail. Runs on SQLite and PostgreSQL, tasks captured."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.groups.models import Game, Group
from apps.results.services import enter_result
from apps.standings import freshness, services
from apps.standings import groups as group_standings
from apps.standings.models import StandingsMark
from apps.standings.tasks import recompute_group_standings
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.healing import fresh, mark, open_games, stored, up_to_date

pytestmark = pytest.mark.django_db(transaction=True)


def enter(user, game: Game, result: str = "1-0") -> Game:
    return enter_result(user, game, result, expected_version=game.version)


def age(group: Group, *, pending: float, requested: float) -> None:
    """Make the group's mark look ``pending`` seconds old, asked for ``requested`` ago."""
    now = timezone.now()
    StandingsMark.objects.filter(group=group).update(
        pending_since=now - timedelta(seconds=pending),
        requested_at=now - timedelta(seconds=requested),
    )


def test_a_change_marks_its_group_once_and_the_recompute_clears_the_mark(organizer, group, queued):
    first, second = open_games(group)[:2]
    before = mark(group).changes  # the publication's mark, cleared by its recompute
    enter(organizer, first)
    found = mark(group)
    assert found.pending_since is not None and found.changes == before + 1
    assert Group.objects.get(pk=group.pk).standings_pending  # the boolean mirrors the mark
    assert queued == [group.pk]

    enter(organizer, second, "0-1")
    again = mark(group)
    assert (again.pending_since, again.changes) == (found.pending_since, before + 2)
    assert queued == [group.pk]  # coalesced: one recompute for both changes
    assert not up_to_date(group)

    assert group_standings.recompute_if_pending(group.pk) == 30
    assert up_to_date(group)
    assert mark(group).pending_since is None
    assert not Group.objects.get(pk=group.pk).standings_pending
    # A duplicate (a redelivered or swept copy of the task) finds nothing to do.
    assert group_standings.recompute_if_pending(group.pk) is None
    assert recompute_group_standings.run(group.pk) == 0


def test_a_change_marked_while_a_recompute_runs_keeps_the_mark_and_queues_the_next(
    organizer, group, queued, monkeypatch
):
    """No lost update: the recompute computed its table before the change; clearing the
    mark then would leave the change uncounted until some other change."""
    first, during = open_games(group)[:2]
    before = mark(group).changes
    enter(organizer, first)
    assert queued == [group.pk]
    compute = group_standings.compute_group

    def change_meanwhile(g: Group):
        table = compute(g)  # what the recompute counts: not the change below
        monkeypatch.setattr(group_standings, "compute_group", compute)
        Game.objects.filter(pk=during.pk).update(
            result="0-1", version=F("version") + 1, updated_at=timezone.now()
        )
        freshness.schedule_recompute(g.pk)  # the change's mark, while the table is stored
        return table

    monkeypatch.setattr(group_standings, "compute_group", change_meanwhile)
    started = timezone.now()
    group_standings.recompute_group(group.pk)

    kept = mark(group)
    assert kept.pending_since is not None and kept.pending_since >= started
    assert kept.changes == before + 2
    assert not up_to_date(group)
    assert queued == [group.pk, group.pk]  # the recompute queued the next one
    group_standings.recompute_if_pending(group.pk)
    assert up_to_date(group) and mark(group).pending_since is None


def test_marks_are_kept_by_the_changes_transaction(organizer, group, queued):
    """Called inside the change's transaction, the mark commits (or rolls back) with it and
    the task is queued only after the commit."""
    game = open_games(group)[0]
    with pytest.raises(RuntimeError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(result="1-0")
        assert freshness.schedule_recompute(group.pk) is True
        raise RuntimeError("the change fails")
    assert mark(group) is None or mark(group).pending_since is None
    assert queued == []

    with transaction.atomic():
        Game.objects.filter(pk=game.pk).update(result="1-0")
        freshness.schedule_recompute(group.pk)
        assert queued == []
    assert queued == [group.pk] and mark(group).pending_since is not None


def test_a_stuck_mark_is_queued_again_by_the_next_change(organizer, group, queued, settings):
    """A mark whose recompute was asked for long ago (never sent, or lost with a worker)
    does not make later changes wait: the next change queues it again."""
    settings.STANDINGS_STALE_SECONDS = 60
    first, second, third = open_games(group)[:3]
    enter(organizer, first)
    age(group, pending=600, requested=600)
    enter(organizer, second)
    assert queued == [group.pk, group.pk]
    enter(organizer, third)  # asked for a moment ago: nothing more
    assert queued == [group.pk, group.pk]


def test_the_sweep_queues_again_only_marks_that_waited_too_long(
    organizer, published_stage, queued, settings, caplog
):
    settings.STANDINGS_STALE_SECONDS = 60
    one, two = Group.objects.filter(stage=published_stage).order_by("number")
    enter(organizer, open_games(one)[0])
    enter(organizer, open_games(two)[0])
    queued.clear()
    age(one, pending=600, requested=600)  # stuck
    age(two, pending=600, requested=10)  # old, but its recompute was asked for lately
    assert freshness.GROUP_STANDINGS.sweep() == [one.pk]
    assert queued == [one.pk]
    assert "queued again" in caplog.text
    assert freshness.GROUP_STANDINGS.sweep() == []  # asked for just now
    assert queued == [one.pk]
    age(two, pending=600, requested=600)
    assert freshness.GROUP_STANDINGS.sweep() == [two.pk]
    # Queued twice (the sweep's copy and a late original): the second does nothing.
    for group in (one, two, one, two):
        recompute_group_standings.run(group.pk)
    assert up_to_date(one) and up_to_date(two)


def test_queueing_that_fails_never_fails_the_change(organizer, group, monkeypatch, caplog):
    def broker_down(args, countdown):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(recompute_group_standings, "apply_async", broker_down)
    game = enter(organizer, open_games(group)[0])
    assert Game.objects.get(pk=game.pk).result == "1-0"
    assert mark(group).pending_since is not None  # kept for the sweep
    assert "the sweep queues them again" in caplog.text

    def recompute_fails(args, countdown):  # tasks in this process: the recompute raised
        raise RuntimeError("database is locked")

    monkeypatch.setattr(recompute_group_standings, "apply_async", recompute_fails)
    age(group, pending=600, requested=600)
    enter(organizer, open_games(group)[0])
    assert "the recompute failed; its mark stays" in caplog.text


def test_sending_to_an_unreachable_broker_is_logged_and_quick_outside_a_worker(
    unreachable_broker, caplog, monkeypatch
):
    caplog.set_level(logging.ERROR, logger="config.celery")
    started = time.monotonic()
    result = recompute_group_standings.apply_async((1,), countdown=2)
    assert result.id
    assert time.monotonic() - started < 2
    assert "apps.standings.tasks.recompute_group_standings(1,) not queued" in caplog.text
    started = time.monotonic()
    recompute_group_standings.delay(2)  # the process does not try that broker again at once
    assert time.monotonic() - started < 0.1
    assert "did not answer a moment ago" in caplog.text

    # Inside a worker the error is the running task's: it fails (or retries) as before.
    unreachable_broker(True)
    running = SimpleNamespace(request=SimpleNamespace(id="parent", root_id=None))
    monkeypatch.setattr(type(recompute_group_standings.app), "current_worker_task", running)
    with pytest.raises(OperationalError):
        recompute_group_standings.apply_async((1,), countdown=2)


def test_an_organizer_forces_a_recompute_of_a_stage_audited(
    organizer, stranger, published_stage, queued
):
    groups = list(published_stage.groups.values_list("pk", flat=True))
    with pytest.raises(ActionError) as refused:
        services.force_recompute(stranger, published_stage)
    assert refused.value.code == ErrorCode.PERMISSION_DENIED

    assert services.force_recompute(organizer, published_stage) == groups
    assert queued == groups
    assert freshness.stage_pending(published_stage).groups == 2
    event = AuditEvent.objects.get(action=Action.STANDINGS_RECOMPUTE_FORCED)
    assert (event.stage_id, event.group_id, event.data) == (published_stage.pk, None, {"groups": 2})
    # Forced again at once: queued again all the same (whatever was asked before).
    one = Group.objects.get(pk=groups[0])
    services.force_recompute(organizer, published_stage, one)
    assert queued == [*groups, one.pk]
    for pk in groups:
        recompute_group_standings.run(pk)
    assert freshness.stage_pending(published_stage).groups == 0
    assert [(e, float(p)) for e, p, _ in stored(one)] == [(e, float(p)) for e, p, _ in fresh(one)]


def test_an_unpublished_stage_has_no_standings_to_recompute(organizer, published_stage):
    following = published_stage.tournament.stages.get(order=2)
    with pytest.raises(ActionError) as refused:
        services.force_recompute(organizer, following)
    assert refused.value.code == ErrorCode.WRONG_STATUS
