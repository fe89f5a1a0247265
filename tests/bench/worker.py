"""The draw through a real Celery worker, end to end, beside its floor.

A ``celery -A config worker`` process (two pool processes, one per core of this 2-core
machine) runs the draw job of a stage of BENCH_ENTRANTS entrants (default 100,000) started
by ``start_draw``, as in production: the division, the group tasks, the finish. The time is
from the start to the job's success, seen by polling the job as the progress bar does.

The floor beside it is what the draw cannot do without: the engine's whole draw of the same
entrants in one process (``draw_stage``), plus a COPY of the same groups, seats and games
into the stage's tables (rolled back; the foreign keys a commit would check row by row are
timed beside it but not counted in the floor). The finish is shown beside that COPY, its own
floor. The targets: the worker's draw within 2× the floor, the finish within 2× its COPY.

BENCH_WORKER_RUNS draws (default 3) each follow their floor, measured in this process while
the worker is idle, so both see about the same load of the shared machine; the figures are
the min and the median of the runs, and of the ratios of each run. Before each floor and
each draw the stage is emptied and its tables vacuumed, so every run writes alike.

The database is the app benchmark's (``closed_circle_bench``, or BENCH_DATABASE), on
DATABASE_URL's PostgreSQL server; the broker is CELERY_BROKER_URL's Redis (default
``redis://127.0.0.1:6379/9``), whose queue is purged before the run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from unittest import mock

from . import app as app_bench

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")
DEFAULT_BROKER = "redis://127.0.0.1:6379/9"
SEED = "bench worker"
ENTRANTS = int(os.environ.get("BENCH_ENTRANTS") or 100_000)
# BENCH_WORKER_RUNS draws (each beside its floor) give the min and median.
RUNS = int(os.environ.get("BENCH_WORKER_RUNS") or 3)


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _start_worker(broker: str, database: str, log: Path) -> tuple[subprocess.Popen, str]:
    name = f"bench-{uuid.uuid4().hex[:8]}@localhost"
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": broker,
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "benchmark-only",
    }
    env.pop("DEBUG", None)  # DEBUG would keep every query of the worker in memory
    command = [
        str(CELERY),
        "-A",
        "config",
        "worker",
        "--queues=celery,lab",  # the default queue and the format lab's (settings.py)
        "--pool=prefork",
        "--concurrency=2",
        "--loglevel=warning",
        f"--hostname={name}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    return process, name


def _use_broker(url: str) -> None:
    """Tasks sent from this process go to ``url`` (not run in-process)."""
    from config.celery import app

    conf = app.conf
    conf.broker_url = url
    conf.result_backend = url
    conf.task_always_eager = conf.task_eager_propagates = False
    app._pool = None
    app.amqp._producer_pool = None


def _floor(stage, settings) -> tuple[float, float, float, str]:
    """The engine's draw of the stage in this process, a plain COPY of its rows into the
    stage's tables (their indexes kept up), and then the check of the seats' keys that a
    commit would run (all rolled back)."""
    from django.db import connection, transaction

    from apps.core.bulk import insert_rows
    from apps.entrants.models import Entrant
    from apps.entrants.services import engine_entrants
    from apps.groups.models import Game, Group, Seat
    from apps.silli.draw import draw_stage

    entrants = engine_entrants(stage)
    result, engine = _timed(lambda: draw_stage(entrants, settings, SEED))
    ids = dict(Entrant.objects.filter(tournament_id=stage.tournament_id).values_list("code", "id"))
    groups = [g.as_dict() for g in result.groups]

    def copy() -> None:
        insert_rows(
            Group,
            ("stage_id", "number", "size", "formula", "rule"),
            ((stage.pk, g["number"], g["size"], g["formula"], g["rule"]) for g in groups),
        )
        group_ids = dict(Group.objects.filter(stage=stage).values_list("number", "pk"))
        insert_rows(
            Seat,
            ("stage_id", "group_id", "number", "entrant_id"),
            (
                (stage.pk, group_ids[g["number"]], s["seat"], ids[s["entrant"]])
                for g in groups
                for s in g["seats"]
            ),
        )
        insert_rows(
            Game,
            ("group_id", "number", "round", "white_id", "black_id"),
            (
                (group_ids[g["number"]], i, x.get("round"), ids[x["white"]], ids[x["black"]])
                for g in groups
                for i, x in enumerate(g["games"], start=1)
            ),
        )

    def check_keys() -> None:
        with connection.cursor() as cursor:  # the seats' keys, checked as a commit would
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")

    # COPY and nothing else: not the ANALYZE that insert_rows runs after many rows.
    with transaction.atomic(), mock.patch("apps.core.bulk.ANALYZE_ABOVE", float("inf")):
        _, copied = _timed(copy)
        _, checked = _timed(check_keys)
        transaction.set_rollback(True)
    return engine, copied, checked, result.digest


def _reset(stage) -> None:
    """The stage as registration left it: no groups, seats or games (the previous run's
    draw deleted, its dead rows vacuumed), so every run's finish writes into the same
    tables as the first."""
    from django.db import connection

    from apps.groups.models import Game, Group, Seat
    from apps.stages.models import Stage

    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Game._meta.db_table} WHERE group_id IN"
            f" (SELECT id FROM {Group._meta.db_table} WHERE stage_id = %s)",
            [stage.pk],
        )
        cursor.execute(f"DELETE FROM {Seat._meta.db_table} WHERE stage_id = %s", [stage.pk])
        cursor.execute(f"DELETE FROM {Group._meta.db_table} WHERE stage_id = %s", [stage.pk])
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.REGISTRATION_CLOSED)
    # The rows the floor's COPY (or the last draw) left dead, cleared now rather than by an
    # autovacuum in the middle of the draw (whose ANALYZE would wait for it); fresh statistics.
    with connection.cursor() as cursor:
        for model in (Group, Seat, Game):
            cursor.execute(f"VACUUM ANALYZE {model._meta.db_table}")
        cursor.execute("ANALYZE")


def _draw(user, stage) -> dict[str, float | str | bool]:
    """One draw of the stage through the worker: its times (from the start) and outcome."""
    from apps.office.services import start_draw
    from apps.stages.models import DrawJob

    marks: dict[str, float] = {}
    start = time.perf_counter()
    job = start_draw(user, stage, SEED)
    while True:
        job.refresh_from_db()
        now = time.perf_counter() - start
        if job.total_groups and "divided" not in marks:
            marks["divided"] = now
        if job.total_groups and job.done_groups >= job.total_groups and "seated" not in marks:
            marks["seated"] = now
        if job.finished:
            break
        if now > 1800:
            raise RuntimeError("the job did not finish in 30 minutes")
        time.sleep(0.01)
    total = time.perf_counter() - start
    seated = marks.get("seated", total)
    divided = marks.get("divided", seated)
    return {
        "total": total,
        "divided": divided,
        "seated": seated - divided,
        "finish": total - seated,
        "succeeded": job.status == DrawJob.Status.SUCCEEDED,
        "status": job.status,
        "error": job.error,
        "digest": job.digest,
        "groups": job.total_groups,
    }


def _min_median(values: list[float]) -> str:
    return f"min {min(values):.2f} s, median {statistics.median(values):.2f} s"


def run() -> list[tuple[str, float, str]]:
    broker = os.environ.get("CELERY_BROKER_URL") or DEFAULT_BROKER
    app_bench._set_up_django()

    import redis
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from apps.entrants.services import close_registration, import_entrants
    from apps.office import draw
    from apps.silli.entrants import entrants_csv
    from apps.silli.synth import make_entrants
    from apps.stages.services import create_tournament
    from config.celery import app

    try:
        redis.Redis.from_url(broker).ping()
    except redis.RedisError as exc:
        return [("draw through a real Celery worker (skipped)", 0.0, f"no Redis: {exc}")]

    database = app_bench.database_url(os.environ)
    log = Path(f"/tmp/bench-worker-{os.getpid()}.log")
    process = None
    try:
        user = get_user_model().objects.create_user("bench-worker")
        cup = create_tournament(user, name="Worker Cup", slug="worker-cup", games_per_player=10)
        stage = cup.first_stage
        import_entrants(user, stage, entrants_csv(make_entrants(ENTRANTS, "bench-worker")))
        stage = close_registration(user, stage)
        settings = draw.draw_settings(stage)

        _use_broker(broker)
        app.control.purge()
        process, name = _start_worker(broker, database, log)
        deadline = time.monotonic() + 120
        while not app.control.ping(destination=[name], timeout=0.5, limit=1):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not start; see {log}")

        # Each run: the floor (in this process, the worker idle), then the draw through the
        # worker, so that both see about the same load of the machine.
        floors: list[tuple[float, float, float]] = []
        draws: list[dict] = []
        loads: list[float] = []
        digest = ""
        for _ in range(RUNS):
            _reset(stage)
            engine, copied, checked, digest = _floor(stage, settings)
            floors.append((engine, copied, checked))
            _reset(stage)
            loads.append(os.getloadavg()[0])
            draws.append(_draw(user, stage))
        wrong = [d for d in draws if not d["succeeded"] or d["digest"] != digest]
        totals = [d["total"] for d in draws]
        finishes = [d["finish"] for d in draws]
        floor_totals = [e + c for e, c, _ in floors]
        copies = [c for _, c, _ in floors]
        whole = [d["total"] / (e + c) for d, (e, c, _) in zip(draws, floors, strict=True)]
        finish = [d["finish"] / c for d, (_, c, _) in zip(draws, floors, strict=True)]
        runs = f"{RUNS} run(s), each beside its floor; load {min(loads):.1f}–{max(loads):.1f}"
        return [
            (
                f"draw {ENTRANTS:,} entrants through a real Celery worker",
                min(totals),
                f"{_min_median(totals)}; {min(whole):.1f}×/{statistics.median(whole):.1f}×"
                f" the floor (min/median ratio); {runs}"
                + (f" — WRONG: {wrong[0]['error'] or 'digest differs'}" if wrong else ""),
            ),
            (
                "  division (run_draw)",
                min(d["divided"] for d in draws),
                _min_median([d["divided"] for d in draws]) + "; until the job knows its groups",
            ),
            (
                "  seat every group (draw_groups tasks)",
                min(d["seated"] for d in draws),
                _min_median([d["seated"] for d in draws]) + f"; {draws[0]['groups']:,} groups",
            ),
            (
                "  persist (finish_draw)",
                min(finishes),
                f"{_min_median(finishes)}; {min(finish):.1f}×/{statistics.median(finish):.1f}×"
                " its COPY (min/median ratio)",
            ),
            (
                "engine + COPY floor",
                min(floor_totals),
                _min_median(floor_totals) + "; draw_stage in one process + COPY of the rows",
            ),
            (
                "  engine (draw_stage)",
                min(e for e, _, _ in floors),
                _min_median([e for e, _, _ in floors]) + "; divide, seat every group, assemble",
            ),
            (
                "  COPY groups, seats, games (the finish's floor)",
                min(copies),
                _min_median(copies) + "; COPY (insert_rows, no ANALYZE), rolled back",
            ),
            (
                "  (not in the floor) the keys checked at commit",
                min(c for _, _, c in floors),
                _min_median([c for _, _, c in floors])
                + "; SET CONSTRAINTS ALL IMMEDIATE after the COPY",
            ),
        ]
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        call_command("flush", interactive=False, verbosity=0)
        connections.close_all()
