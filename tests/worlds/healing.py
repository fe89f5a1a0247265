"""Standings that heal themselves: a small published stage, tasks captured or sent to an
unreachable broker, and (for the fault tests) a real worker and a real beat.

The worker comes from tests/worlds/worker.py (a ``celery worker`` process on the test database
and a Redis database of its own); beat is started here the same way. Both read
``STANDINGS_STALE_SECONDS`` and ``STANDINGS_SWEEP_SECONDS`` from the environment, which the
fault tests shorten to seconds so that a sweep heals within the test.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from apps.standings.groups import compute_group
from apps.standings.models import GroupStanding, StandingsMark
from config.celery import app, forget_broker_failures
from tests.conftest import tasks_in_process
from tests.worlds import worker as integration
from tests.worlds.worker import (
    CELERY,
    ROOT,
    _forget_broker_connections,
    broker_url,
    database_url,
)

# The integration tests' fixtures, here too: a Redis database of the test's own, and workers.
broker = integration.broker
start_worker = integration.start_worker

PASSWORD = "pw-heal-123"


@pytest.fixture
def organizer(transactional_db):
    return get_user_model().objects.create_user("heal-org", "org@example.org", PASSWORD)


@pytest.fixture
def stranger(transactional_db):
    return get_user_model().objects.create_user("heal-other", "other@example.org", PASSWORD)


@pytest.fixture
def drawn_stage(organizer) -> Stage:
    """60 entrants in two groups of 30 (six games each), drawn (in this process), not yet
    published."""
    cup = create_tournament(
        organizer,
        name="Healing Cup",
        slug="healing-cup",
        games_per_player=6,
        stages=[{"min_group_size": 30}, {"kind": Stage.Kind.FINAL, "min_group_size": 6}],
    )
    stage = cup.first_stage
    with tasks_in_process():
        import_entrants(organizer, stage, entrants_csv(make_entrants(60, "healing")))
        close_registration(organizer, stage)
        start_draw(organizer, stage, "healing seed")
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    return stage


@pytest.fixture
def published_stage(organizer, drawn_stage) -> Stage:
    """:func:`drawn_stage`, published; its standings computed (in this process) and up to
    date."""
    stage = drawn_stage
    with tasks_in_process():
        publish_draw(organizer, stage)
    stage.refresh_from_db()
    assert not StandingsMark.objects.filter(pending_since__isnull=False).exists()
    return stage


@pytest.fixture
def group(published_stage) -> Group:
    return Group.objects.get(stage=published_stage, number=1)


def open_games(group: Group) -> list[Game]:
    return list(Game.objects.filter(group=group, result="").order_by("number"))


def mark(group: Group) -> StandingsMark | None:
    return StandingsMark.objects.filter(group=group).first()


def stored(group: Group) -> list[tuple]:
    """The group's stored standings: (entrant, points, place) by position."""
    return list(
        GroupStanding.objects.filter(group=group)
        .order_by("position")
        .values_list("entrant_id", "points", "place")
    )


def fresh(group: Group) -> list[tuple]:
    """The group's standings computed now from its games, in the form of :func:`stored`."""
    table = compute_group(Group.objects.select_related("stage__tournament").get(pk=group.pk))
    return [(s.figures.id, s.figures.points, s.label) for s in table.standings]


def up_to_date(group: Group) -> bool:
    """No pending mark, and the stored standings are those of the games."""
    found = mark(group)
    if found is not None and found.pending_since is not None:
        return False
    points = [(e, float(p), place) for e, p, place in stored(group)]
    return points == [(e, float(p), place) for e, p, place in fresh(group)]


@pytest.fixture
def queued(monkeypatch) -> list[int]:
    """Recompute tasks are recorded instead of sent (or run): the groups, in order."""
    sent: list[int] = []
    monkeypatch.setattr(
        "apps.standings.tasks.recompute_group_standings.apply_async",
        lambda args, countdown: sent.append(args[0]),
    )
    return sent


def closed_port() -> int:
    """A local TCP port nothing listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def unreachable_broker(monkeypatch) -> Iterator[Callable[[bool], None]]:
    """Tasks sent from this process go to a broker nobody answers at (a closed port), as
    when Redis is down; ``down(False)`` points them at the ``broker`` fixture's Redis."""
    real = broker_url()  # read before the environment names the closed port
    conf = app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = False

    def down(is_down: bool = True) -> None:
        if is_down:
            monkeypatch.setenv("CELERY_BROKER_URL", f"redis://127.0.0.1:{closed_port()}/0")
        else:
            monkeypatch.setenv("CELERY_BROKER_URL", real)
        _forget_broker_connections()
        forget_broker_failures()

    down(True)
    yield down
    conf.task_always_eager, conf.task_eager_propagates = saved
    _forget_broker_connections()
    forget_broker_failures()


class Beat:
    """A ``celery beat`` process sending the schedule of config/settings.py to the broker."""

    def __init__(self, broker_url: str, database: str, directory: Path) -> None:
        self.log = directory / "beat.log"
        env = {
            **os.environ,
            "DATABASE_URL": database,
            "CELERY_BROKER_URL": broker_url,
            "CELERY_RESULT_BACKEND": broker_url,
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "integration-tests-only",
        }
        command = [
            str(CELERY),
            "-A",
            "config",
            "beat",
            "--loglevel=info",
            f"--schedule={directory / 'beat-schedule'}",
            f"--pidfile={directory / 'beat.pid'}",
        ]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return f"Beat log ({self.log}):\n{self.log.read_text()[-3000:]}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def quick_sweep(monkeypatch) -> None:
    """Workers and beat started after this sweep every second the marks older than two, and
    the outbox every second."""
    monkeypatch.setenv("STANDINGS_STALE_SECONDS", "2")
    monkeypatch.setenv("STANDINGS_SWEEP_SECONDS", "1")
    monkeypatch.setenv("OUTBOX_SWEEP_SECONDS", "1")


@pytest.fixture
def start_beat(broker, django_db_setup, tmp_path) -> Iterator[Callable[[], Beat]]:
    started: list[Beat] = []

    def start() -> Beat:
        beat = Beat(broker, database_url(), tmp_path)
        started.append(beat)
        return beat

    yield start
    for beat in started:
        beat.stop()
