"""Results import benchmark on PostgreSQL: a stage of ENTRANTS entrants (100,000: about
500,000 games, drawn as tests/bench/app.py draws them), every game's result in one CSV,
imported for the whole stage as a job, until every group's standings and the stage's
ranking are stored — beside its floor in the same run: one COPY of the same (game, result)
rows into a temporary table and one set-based UPDATE of the same games from it.

The job runs in a process of its own (``python -m tests.bench.imports job <id>``), as a
worker runs it: reading, checking and applying the file, then — tasks run in that process
(no broker) — the standings tasks the import queues and the ranking rebuild they queue. Its
peak memory (``ru_maxrss``) is that of the whole chain; it prints which standings tasks were
queued and how long each took. The players' digests are counted, not built (a task of their
own, not part of "the results stored").

RUNS imports (BENCH_IMPORT_RUNS, default 3) run on one drawn stage: before each, every game
is in progress again and the stored standings and ranking are gone. Min and median are
printed. BENCH_ENTRANTS sets the size (e.g. 20000 while developing: 100,000 results);
BENCH_DATABASE the database (tests/bench/app.py); BENCH_SQL_LOG=1 has the job's process
print its statements of 50 ms or more (on stderr).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from unittest import mock

RUNS = int(os.environ.get("BENCH_IMPORT_RUNS") or 3)
# The goals (issue 28): seconds for 500,000 results, megabytes of any process.
GOAL_SECONDS = 25
GOAL_MB = 300


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _drawn_stage():
    """A published stage of ENTRANTS entrants, drawn (the app benchmark's steps)."""
    from django.contrib.auth import get_user_model

    from apps.entrants.services import close_registration, import_entrants
    from apps.office import draw
    from apps.silli.entrants import entrants_csv
    from apps.silli.synth import make_entrants
    from apps.stages.models import DrawJob
    from apps.stages.services import create_tournament

    from .app import ENTRANTS, SEED, _draw_groups

    user = get_user_model().objects.create_user("bench-organizer")
    cup = create_tournament(user, name="Bench Cup", slug="bench-cup", games_per_player=10)
    stage = cup.first_stage
    import_entrants(user, stage, entrants_csv(make_entrants(ENTRANTS, "bench-app")))
    stage = close_registration(user, stage)
    job = DrawJob.objects.create(
        stage=stage,
        seed=SEED,
        draw_settings=draw.draw_settings(stage).as_dict(),
        started_by=user,
    )
    numbers = draw.prepare(job.pk)
    _draw_groups(job.pk, numbers)
    draw.finish(job.pk)
    stage.refresh_from_db()
    stage.status = stage.Status.PUBLISHED
    stage.save(update_fields=["status"])
    return user, stage


def _results(stage) -> tuple[str, list[tuple[int, str]]]:
    """The CSV of every game's result, and the same (game id, result) rows for the floor."""
    from apps.groups.models import Game

    codes = ("1-0", "1/2-1/2", "0-1", "1/2-1/2", "+-")
    pairs = Game.objects.filter(group__stage=stage).order_by("group__number", "number")
    rows = []
    lines = ["white,black,result\n"]
    for i, (pk, white, black) in enumerate(
        pairs.values_list("pk", "white__code", "black__code").iterator(chunk_size=5000)
    ):
        rows.append((pk, codes[i % 5]))
        lines.append(f"{white},{black},{codes[i % 5]}\n")
    return "".join(lines), rows


def _reset(stage) -> None:
    """Every game of the stage in progress again, its stored standings, ranking, marks,
    import jobs and import audit gone; the games' table vacuumed (as after the draw)."""
    from django.db import connection, transaction

    from apps.core.audit import Action
    from apps.core.models import AuditEvent
    from apps.groups.models import Game, Group
    from apps.results.models import ResultImportJob
    from apps.standings.models import GroupStanding, RankingMark, StageRankingRow, StandingsMark

    with transaction.atomic():
        Game.objects.filter(group__stage=stage).update(
            result="", adjudicated=False, version=0, updated_at=None, pgn="", finished_on=None
        )
        GroupStanding.objects.filter(group__stage=stage).delete()
        StageRankingRow.objects.filter(stage=stage).delete()
        StandingsMark.objects.filter(group__stage=stage).delete()
        RankingMark.objects.filter(stage=stage).delete()
        Group.objects.filter(stage=stage).update(standings_pending=False)
        ResultImportJob.objects.filter(stage=stage).delete()
        AuditEvent.objects.filter(
            action__in=[
                Action.RESULTS_IMPORTED,
                Action.RESULTS_IMPORT_STARTED,
                Action.RESULT_ENTERED,  # written per game before ResultChange rows were
            ]
        ).delete()
    with connection.cursor() as cursor:
        for model in (Game, GroupStanding, StageRankingRow):
            cursor.execute(f"VACUUM ANALYZE {model._meta.db_table}")


def _floor(rows: list[tuple[int, str]]) -> float:
    """One COPY of the (game, result) rows into a temporary table and one UPDATE of the same
    games from it (result, version, updated_at), rolled back."""
    from django.db import connection, transaction

    from apps.groups.models import Game

    table = Game._meta.db_table

    def update() -> None:
        with connection.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE _floor (id bigint, result text) ON COMMIT DROP")
            with cursor.copy("COPY _floor (id, result) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            cursor.execute("ANALYZE _floor")
            cursor.execute(
                f"UPDATE {table} AS g SET result = f.result, version = g.version + 1,"
                " updated_at = now() FROM _floor AS f WHERE g.id = f.id"
            )

    with transaction.atomic():
        seconds = _timed(update)[1]
        transaction.set_rollback(True)
    return seconds


def _run_job(job_id: int) -> dict:
    """Run the job in a process of its own (:func:`child`); what it printed."""
    env = {**os.environ}
    env.pop("CELERY_BROKER_URL", None)  # tasks run in the job's process
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench.imports", "job", str(job_id)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the import job's process failed:\n{done.stderr[-4000:]}")
    if os.environ.get("BENCH_SQL_LOG"):
        sys.stderr.write(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def child(job_id: int) -> None:
    """The job's process: run the results import job, with the standings and ranking tasks
    it queues (in this process); print what it did as one JSON line."""
    import resource

    import django

    django.setup()
    from celery import current_app

    from apps.results import import_jobs
    from apps.results.models import ResultImportJob
    from apps.standings.freshness import GROUP_STANDINGS, STAGE_RANKING
    from apps.standings.models import RankingMark, StandingsMark

    queued: dict[str, list[float]] = {}
    outer: list[float] = []  # the tasks queued by the import itself (a task's own in its time)
    depth = [0]
    import_peak: list[float] = []
    names = (GROUP_STANDINGS.task, GROUP_STANDINGS.batch_task, STAGE_RANKING.task)
    for name in names:
        task = current_app.tasks[name]

        def timed(*args, _run=task.apply_async, _name=name, **kwargs):
            if not queued:  # the import is done: its process's peak so far
                import_peak.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
            depth[0] += 1
            try:
                result, seconds = _timed(lambda: _run(*args, **kwargs))
            finally:
                depth[0] -= 1
            queued.setdefault(_name.rsplit(".", 1)[-1], []).append(seconds)
            if not depth[0]:
                outer.append(seconds)
            return result

        task.apply_async = timed  # type: ignore[method-assign]
    if os.environ.get("BENCH_SQL_LOG"):  # the statements of 50 ms or more, to stderr
        from django.db import connection

        def log(execute, sql, params, many, context):
            start = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                took = time.perf_counter() - start
                if took > 0.05:
                    print(f"{took:7.3f} {sql[:160]}", file=sys.stderr)

        connection.execute_wrappers.append(log)
    digests = []
    with mock.patch("apps.notifications.tasks.results_imported.delay", digests.append):
        status, seconds = _timed(lambda: import_jobs.run_import(job_id))
    job = ResultImportJob.objects.get(pk=job_id)
    print(
        json.dumps(
            {
                "status": status,
                "seconds": seconds,
                "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "import_maxrss_mb": import_peak[0] if import_peak else None,
                "tasks": queued,
                "tasks_seconds": sum(outer),
                "digests": len(digests),
                "applied": (job.result or {}).get("applied"),
                "error": job.error,
                "pending_groups": StandingsMark.objects.filter(
                    group__stage_id=job.stage_id, pending_since__isnull=False
                ).count(),
                "ranking_built": RankingMark.objects.filter(
                    stage_id=job.stage_id, pending_since__isnull=True, built_at__isnull=False
                ).exists(),
            }
        )
    )


def run() -> list[tuple[str, float, str]]:
    from .app import _set_up_django

    _set_up_django()
    from django.core.management import call_command
    from django.db import connections

    from apps.results import import_jobs
    from apps.standings.models import StageRankingRow

    try:
        (user, stage), drawn = _timed(_drawn_stage)
        text, rows = _results(stage)
        runs = []
        floors = []
        for _ in range(RUNS):
            _reset(stage)
            connections.close_all()
            with mock.patch("apps.results.tasks.run_result_import.delay"):
                job, started = _timed(
                    lambda: import_jobs.start_import(
                        user, text=text, stage=stage, file_format="csv"
                    )
                )
            done = _run_job(job.pk)
            if done["status"] != "succeeded" or done["pending_groups"] or not done["ranking_built"]:
                raise RuntimeError(f"the import did not store everything: {done}")
            runs.append((started + done["seconds"], done))
            floors.append(_floor(rows))
        ranked = StageRankingRow.objects.filter(stage=stage).count()
    finally:
        call_command("flush", interactive=False, verbosity=0)
        connections.close_all()
    times = [seconds for seconds, _done in runs]
    best = min(runs, key=lambda run: run[0])[1]
    ratios = [seconds / floor for (seconds, _d), floor in zip(runs, floors, strict=True)]
    peak = max(done["maxrss_mb"] for _s, done in runs)
    import_peak = max(done["import_maxrss_mb"] or 0 for _s, done in runs)
    tasks = ", ".join(
        f"{name} ×{len(took)} ({sum(took):.1f} s)" for name, took in best["tasks"].items()
    )
    # The import alone: starting the job, reading, checking, applying, committing.
    alone = [seconds - done["tasks_seconds"] for seconds, done in runs]
    return [
        (f"  set up: draw a stage of {len(rows):,} games", drawn, "entrants, draw (app steps)"),
        (
            f"import {len(rows):,} results (CSV job) until every standing and the ranking",
            min(times),
            f"min of {RUNS}; median {statistics.median(times):.1f} s; goal < {GOAL_SECONDS} s "
            f"at 500,000; {len(text) / 1e6:.1f} MB; {ranked:,} ranking rows",
        ),
        (
            "  floor: COPY + one set-based UPDATE of the same games",
            min(floors),
            f"median {statistics.median(floors):.1f} s; ratio min {min(ratios):.1f}× / "
            f"median {statistics.median(ratios):.1f}×",
        ),
        (
            "  the job's process: peak memory (MB, as seconds column)",
            peak,
            f"ru_maxrss, reading + checking + applying + standings; goal < {GOAL_MB} MB; "
            f"the import alone {import_peak:.0f} MB "
            f"({import_peak * 1024 * 1024 / len(rows):,.0f} bytes a result)",
        ),
        (
            "  of which the import alone (start, read, check, apply, commit)",
            min(alone),
            f"min of {RUNS}; median {statistics.median(alone):.1f} s; ratio to the floor min "
            f"{min(a / f for a, f in zip(alone, floors, strict=True)):.1f}× / median "
            f"{statistics.median(a / f for a, f in zip(alone, floors, strict=True)):.1f}×",
        ),
        (
            "  of which the standings tasks (best run)",
            best["tasks_seconds"],
            f"queued: {tasks} (the ranking inside the stage pass); {best['digests']} digest "
            "task(s) queued (not run)",
        ),
    ]


if __name__ == "__main__":
    if sys.argv[1:2] == ["job"]:
        child(int(sys.argv[2]))
    else:
        for row in run():
            print(f"{row[0]:70s} {row[1]:9.3f}   {row[2]}")
