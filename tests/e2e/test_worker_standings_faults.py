"""Each fault of "standings freeze for ever", on PostgreSQL and Redis with real workers (and a
real beat): results saved while the broker is down, a worker killed during a recompute, a
pool process killed during one, a change landing while one runs. Every time the write
answers at once and the standings heal by themselves.

Workers and beat run with ``STANDINGS_STALE_SECONDS=2`` and ``STANDINGS_SWEEP_SECONDS=1``
(the ``quick_sweep`` fixture) so that a sweep heals within seconds, not minutes.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connection
from rest_framework.test import APIClient

from apps.core.audit import Action
from apps.core.models import AuditEvent, UnsentTask
from apps.groups.models import Game, Group
from apps.results.services import enter_result
from apps.standings.freshness import GROUP_STANDINGS
from apps.standings.models import GroupStanding
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.healing import database_url, mark, open_games, up_to_date
from tests.worlds.worker import _forget_broker_connections, wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

RECOMPUTE = "apps.standings.tasks.recompute_group_standings"
SWEEP = "apps.standings.tasks.sweep_stale_standings"
NOTIFY = "apps.notifications.tasks.result_changed"
HEAL = 30  # seconds: the longest a heal may take here (a sweep every second, marks stale at 2)


def post_result(api: APIClient, game: Game, result: str = "1-0"):
    game.refresh_from_db()
    return api.post(
        f"/api/games/{game.pk}/result/",
        {"result": result, "expected_version": game.version},
        format="json",
    )


@contextmanager
def standings_locked(group: Group) -> Iterator[None]:
    """Hold the group's stored standings rows from another connection: a recompute of the
    group stops at its write (holding the group's lock, its marks read), while result entry
    goes on."""
    with psycopg.connect(database_url()) as other:
        table = GroupStanding._meta.db_table
        other.execute(f'SELECT 1 FROM "{table}" WHERE group_id = %s FOR UPDATE', [group.pk])
        yield
        other.rollback()


@contextmanager
def recompute_lock_held(group: Group) -> Iterator[None]:
    """Hold the group's recompute lock from another connection: a recompute of the group
    waits for it in its first message, before it has sent anything that writes (its store,
    settle and commit go in one later message, which the server finishes even for a client
    killed after sending it), while result entry goes on."""
    with psycopg.connect(database_url()) as other:
        other.execute(
            "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
            [GROUP_STANDINGS.lock_class, group.pk],
        )
        yield
        other.rollback()


def running_recomputes(worker) -> list[int]:
    """The pool processes running a recompute now."""
    return [t["worker_pid"] for t in worker.active() if t["name"] == RECOMPUTE]


def pending(group: Group) -> bool:
    found = mark(group)
    return found is not None and found.pending_since is not None


def test_results_saved_while_the_broker_is_down_answer_at_once_and_are_counted_when_it_is_back(
    organizer, group, broker, unreachable_broker, quick_sweep, start_worker, start_beat
):
    api = APIClient()
    api.force_authenticate(organizer)
    games = open_games(group)[:2]
    for game, result in zip(games, ("1-0", "1/2-1/2"), strict=True):
        started = time.monotonic()
        response = post_result(api, game, result)
        took = time.monotonic() - started
        assert response.status_code == 200, response.content
        assert took < 3, f"a save took {took:.1f} s with the broker down"  # was 19 s
        assert Game.objects.get(pk=game.pk).result == result
    assert AuditEvent.objects.filter(action=Action.RESULT_ENTERED, group_id=group.pk).count() == 2
    assert pending(group) and not up_to_date(group)  # the mark waits for the broker
    # The results' e-mail tasks wait in the outbox (the recomputes are kept by the mark).
    kept = list(UnsentTask.objects.values_list("task", flat=True))
    assert kept == [NOTIFY] * 2, kept

    unreachable_broker(False)  # Redis is back
    worker = start_worker()
    beat = start_beat()

    def explain() -> str:
        return f"{worker.output()}\n{beat.output()}"

    wait_until(
        "the sweep recomputes the group", lambda: up_to_date(group), timeout=HEAL, explain=explain
    )
    # The next worker recomputed it: queued by the sweep, or the lost task delivered again
    # (it was never acknowledged) — whichever comes first; either heals, neither twice wrong.
    assert worker.executed().get(RECOMPUTE, 0) >= 1
    wait_until(
        "the outbox sends the e-mail tasks",
        lambda: worker.executed().get(NOTIFY, 0) >= 2,
        timeout=HEAL,
        explain=explain,
    )
    assert not UnsentTask.objects.exists()


def test_a_silent_broker_costs_one_save_about_two_seconds(
    organizer, group, unreachable_broker, monkeypatch
):
    """A broker that takes the connection and never answers (a hung Redis, a half-open
    connection): the socket timeout ends the wait, and the process does not wait for it
    again at once."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # connections complete in the backlog; nothing is ever read or sent
    monkeypatch.setenv("CELERY_BROKER_URL", f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
    _forget_broker_connections()
    api = APIClient()
    api.force_authenticate(organizer)
    try:
        first, second = open_games(group)[:2]
        started = time.monotonic()
        assert post_result(api, first).status_code == 200
        took = time.monotonic() - started
        assert took < 4, f"{took:.1f} s"  # two sends (recompute, e-mail), one timeout
        started = time.monotonic()
        assert post_result(api, second).status_code == 200
        assert time.monotonic() - started < 1
    finally:
        silent.close()
    assert pending(group)


def test_a_recompute_lost_with_a_killed_worker_is_swept_by_the_next_worker(
    organizer, group, broker, quick_sweep, start_worker, start_beat
):
    worker = start_worker()
    with recompute_lock_held(group):
        game = open_games(group)[0]
        enter_result(organizer, game, "0-1", expected_version=game.version)
        wait_until("the recompute runs", lambda: running_recomputes(worker), explain=worker.output)
        worker.kill()  # kill -9 of the worker and its pool processes
    assert pending(group) and not up_to_date(group)

    worker = start_worker()
    beat = start_beat()

    def explain() -> str:
        return f"{worker.output()}\n{beat.output()}"

    wait_until(
        "the sweep recomputes the group", lambda: up_to_date(group), timeout=HEAL, explain=explain
    )
    assert worker.executed().get(SWEEP, 0) >= 1


def test_a_recompute_whose_pool_process_dies_is_delivered_again_at_once(
    organizer, group, broker, start_worker
):
    """acks_late + reject_on_worker_lost: the worker puts the task back on the queue and
    another pool process runs it; no sweep needed (none runs here)."""
    worker = start_worker()
    with standings_locked(group):
        game = open_games(group)[0]
        enter_result(organizer, game, "1-0", expected_version=game.version)
        pids = wait_until(
            "the recompute runs", lambda: running_recomputes(worker), explain=worker.output
        )
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
    wait_until(
        "the recompute runs again", lambda: up_to_date(group), timeout=HEAL, explain=worker.output
    )
    assert worker.process.poll() is None


def test_a_result_saved_while_a_recompute_runs_is_counted_by_the_next_one(
    organizer, group, broker, start_worker
):
    """The result commits after the running recompute read the games; its mark waits for
    that recompute to finish and then queues the next one: nothing is lost."""
    worker = start_worker()
    first, second = open_games(group)[:2]
    errors: list[BaseException] = []

    def enter_second() -> None:
        try:
            enter_result(organizer, second, "0-1", expected_version=second.version)
        except BaseException as error:  # reported by the test below
            errors.append(error)
        finally:
            connection.close()

    with standings_locked(group):
        enter_result(organizer, first, "1-0", expected_version=first.version)
        wait_until("the recompute runs", lambda: running_recomputes(worker), explain=worker.output)
        writer = threading.Thread(target=enter_second)
        writer.start()
        wait_until(
            "the second result is saved",
            lambda: Game.objects.get(pk=second.pk).result == "0-1",
            explain=worker.output,
        )
    writer.join(timeout=HEAL)
    assert not writer.is_alive() and not errors, errors
    wait_until(
        "both results are counted", lambda: up_to_date(group), timeout=HEAL, explain=worker.output
    )
    assert worker.executed().get(RECOMPUTE, 0) >= 2
