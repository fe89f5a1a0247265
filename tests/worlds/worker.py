"""A real Celery worker on the test database, and what the integration tests check with.

The worker is a separate process (``celery -A config worker``) whose DATABASE_URL names the
database pytest-django created, so tests that use it commit their data
(``django_db(transaction=True)``). Worker and test process share a Redis database of their
own, emptied before each test, so messages left by an earlier run cannot reach the worker;
the test process sends its tasks there instead of running them in-process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit

import psycopg
import pytest
import redis
from django.contrib.auth import get_user_model
from django.db import connection

from apps.entrants.services import close_registration, engine_entrants, import_entrants
from apps.groups.models import Game, Group, Seat
from apps.office.draw import draw_settings
from apps.office.services import publish_draw, start_draw
from apps.silli.draw import StageDraw, draw_stage, nation_mix
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import DrawJob, Stage
from apps.stages.services import create_tournament
from config.celery import app
from tests.conftest import tasks_in_process

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")
DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
# The Redis database of these tests, emptied before each one (TEST_BROKER_DB: another one,
# for runs side by side on one Redis).
BROKER_DB = int(os.environ.get("TEST_BROKER_DB") or 13)
WAIT = 120  # seconds: the longest any one wait (a worker's start, a job) may take


def wait_until(
    what: str,
    condition: Callable[[], object],
    *,
    timeout: float = WAIT,
    every: float = 0.05,
    explain: Callable[[], str] = str,
):
    """Poll ``condition`` until it gives a true value, and return that value."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s. {explain()}")
        time.sleep(every)
    return value


def broker_url() -> str:
    """CELERY_BROKER_URL's Redis server (or the local one), database BROKER_DB."""
    server = os.environ.get("CELERY_BROKER_URL") or DEFAULT_BROKER
    return urlsplit(server)._replace(path=f"/{BROKER_DB}").geturl()


def database_url() -> str:
    """The URL of the database this test runs on: pytest-django's test database."""
    db = connection.settings_dict
    auth = quote(db["USER"] or "", safe="")
    if db["PASSWORD"]:
        auth += ":" + quote(db["PASSWORD"], safe="")
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{auth}@{db['HOST']}{port}/{quote(db['NAME'], safe='')}"


def _forget_broker_connections() -> None:
    # The app keeps the connection pools of the broker it had when it made them; kombu keeps
    # one pool per broker URL, so the next use takes (or makes) the current broker's.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker(monkeypatch) -> Iterator[str]:
    """Tasks sent from this process go to Redis (BROKER_DB, emptied) instead of running here."""
    url = broker_url()
    redis.Redis.from_url(url).flushdb()
    # Celery reads CELERY_BROKER_URL from the environment before its configuration.
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    conf = app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = False
    _forget_broker_connections()
    yield url
    conf.task_always_eager, conf.task_eager_propagates = saved
    _forget_broker_connections()


class Worker:
    """One ``celery worker`` process with two pool processes, like a small deployment."""

    def __init__(
        self,
        broker: str,
        database: str,
        log: Path,
        *,
        queues: str = "celery,lab",
        concurrency: int = 2,
    ) -> None:
        self.name = f"integration-{uuid.uuid4().hex[:8]}@localhost"
        self.log = log
        env = {
            **os.environ,
            "DATABASE_URL": database,
            "CELERY_BROKER_URL": broker,
            "CELERY_RESULT_BACKEND": broker,
            # A DATABASE_URL turns DEBUG off by default, and then settings want a key.
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "integration-tests-only",
        }
        command = [
            str(CELERY),
            "-A",
            "config",
            "worker",
            # the default queue and the format lab's (settings.py), unless told otherwise
            f"--queues={queues}",
            "--pool=prefork",
            f"--concurrency={concurrency}",
            "--loglevel=warning",
            f"--hostname={self.name}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        with log.open("ab") as out:
            # A session of its own: kill() can end the worker and its pool processes at once.
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        """The end of the worker's log, for failure messages."""
        return f"Worker log ({self.log}):\n{self.log.read_text()[-4000:]}"

    def wait_ready(self) -> None:
        def answers() -> list:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"the worker exited ({self.process.returncode}). {self.output()}"
                )
            return app.control.ping(destination=[self.name], timeout=0.5, limit=1)

        wait_until("the worker answers a ping", answers, explain=self.output)

    def inspect(self):
        return app.control.inspect(destination=[self.name], timeout=5, limit=1)

    def active(self) -> list[dict]:
        """The tasks the worker's pool processes run now (each with its ``worker_pid``)."""
        return (self.inspect().active() or {}).get(self.name, [])

    def executed(self) -> dict[str, int]:
        """How many tasks of each name the worker has run so far (counted when it starts
        each)."""
        return (self.inspect().stats() or {}).get(self.name, {}).get("total", {})

    def ran(self, name: str, times: int) -> bool:
        """Whether the worker has started task ``name`` at least ``times`` times and runs
        nothing now: what those runs did is then committed and can be read."""
        return self.executed().get(name, 0) >= times and not self.active()

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes together, as a crashed machine would."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=WAIT)

    def stop(self) -> None:
        """A warm shutdown (SIGTERM): tasks not started go back to the queue."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


@pytest.fixture
def start_worker(broker, django_db_setup, tmp_path) -> Iterator[Callable[..., Worker]]:
    """Start a worker on this test's database and broker (consuming ``queues``, by default
    both the default queue and the format lab's); every one is stopped at the end."""
    workers: list[Worker] = []

    def start(queues: str = "celery,lab", concurrency: int = 2) -> Worker:
        log = tmp_path / f"worker-{len(workers) + 1}.log"
        worker = Worker(broker, database_url(), log, queues=queues, concurrency=concurrency)
        workers.append(worker)
        worker.wait_ready()
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@example.org")


def closed_stage(organizer, entrants: int) -> Stage:
    """A tournament's preliminary with ``entrants`` synthetic entrants, registration closed
    (10 games a player, groups of at least 100)."""
    cup = create_tournament(
        organizer, name=f"Cup of {entrants}", slug=f"cup-{entrants}", games_per_player=10
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(entrants, f"cup-{entrants}")))
    return close_registration(organizer, stage)


def silli_draw(stage: Stage, seed: str) -> StageDraw:
    """The engine's draw of the stage's entrants and settings with ``seed``, no database."""
    return draw_stage(engine_entrants(stage), draw_settings(stage), seed)


def finished(job: DrawJob, explain: Callable[[], str] = str) -> DrawJob:
    """Wait until the job has succeeded or failed."""

    def done() -> bool:
        job.refresh_from_db()
        return job.finished

    wait_until(f"draw job {job.pk} finishes", done, explain=explain)
    return job


def stored_draw(stage: Stage) -> tuple[list, list, list]:
    """What the stage's tables hold: groups, seats and games, each row once, in order."""
    groups = Group.objects.filter(stage=stage).values_list(
        "number", "size", "formula", "rule", "principles_hold", "conflicts", "nation_mix"
    )
    seats = Seat.objects.filter(stage=stage).values_list("group__number", "number", "entrant__code")
    games = Game.objects.filter(group__stage=stage).values_list(
        "group__number", "number", "white__code", "black__code", "round"
    )
    return sorted(groups), sorted(seats), sorted(games)


def expected_tables(draw: StageDraw) -> tuple[list, list, list]:
    """What the tables must hold for ``draw``, in the form of :func:`stored_draw`."""
    groups = [
        (
            g.number,
            g.size,
            list(g.formula),
            g.rule,
            g.principles_hold,
            g.as_dict()["certificate"]["conflicts"],  # type: ignore[index]
            [list(mix) for mix in nation_mix(s.nation for s in g.seats)],
        )
        for g in draw.groups
    ]
    seats = [(g.number, s.seat, s.entrant) for g in draw.groups for s in g.seats]
    games = [
        (g.number, i, game.white, game.black, game.round)
        for g in draw.groups
        for i, game in enumerate(g.games, start=1)
    ]
    return sorted(groups), sorted(seats), sorted(games)


def assert_stage_holds(stage: Stage, draw: StageDraw) -> None:
    """The stage is drawn with ``draw``: its digest, and every group, seat and game exactly
    once (lists compared whole, so a duplicate or a missing row fails)."""
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    assert (stage.seed, stage.draw_digest) == (draw.seed, draw.digest)
    assert stored_draw(stage) == expected_tables(draw)


@contextmanager
def stage_row_locked(stage: Stage) -> Iterator[None]:
    """Hold the stage's row lock from another connection: a draw's finish waits for it (it
    locks the job, then the stage), while the division and the group tasks do not."""
    with psycopg.connect(database_url()) as other:
        table = Stage._meta.db_table
        other.execute(f'SELECT 1 FROM "{table}" WHERE id = %s FOR NO KEY UPDATE', [stage.pk])
        yield
        other.rollback()


def swiss_round_one_played(organizer, name: str, players: int, seed: str) -> Stage:
    """A published Swiss stage of ``players`` (7 rounds) whose round 1 White won on every
    board, made in this process (tasks in process) before any worker starts."""
    cup = create_tournament(
        organizer,
        name=name,
        slug=name.lower().replace(" ", "-"),
        stages=[{"kind": Stage.Kind.FINAL, "format": Stage.Format.SWISS, "swiss_rounds": 7}],
    )
    stage = cup.stages.get()
    with tasks_in_process():
        import_entrants(organizer, stage, entrants_csv(make_entrants(players, seed)))
        close_registration(organizer, stage)
        start_draw(organizer, stage, f"{seed} seed")
        stage.refresh_from_db()
        publish_draw(organizer, stage)
    stage.refresh_from_db()
    Game.objects.filter(group__stage=stage, round=1).update(result="1-0")
    return stage
