"""Application benchmark on PostgreSQL: import 100,000 entrants, close registration, then draw
and persist their preliminary (about 1,000 groups, 500,000 games) with the draw job's steps.

The group tasks (a batch of groups each) run in WORKERS processes, each with its own
database connection, as that many Celery worker processes take them from the queue in
production (one per core of this 2-core machine); the division and the finish are one task
each. ``--only worker`` runs the same job through a real Celery worker (tests/bench/worker.py).

It runs in a database of its own, ``closed_circle_bench``, on DATABASE_URL's server when that
is PostgreSQL, else on 127.0.0.1:5432 as role postgres. The database is created and migrated
when missing, and emptied before and after the run, so no other data is ever touched.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import time
from collections.abc import Mapping
from unittest import mock
from urllib.parse import urlsplit

import django
import psycopg
from psycopg import sql

# BENCH_ENTRANTS runs it at another size (e.g. 10000 while developing).
ENTRANTS = int(os.environ.get("BENCH_ENTRANTS") or 100_000)
SEED = "bench"
# BENCH_DATABASE names another database of its own (e.g. one per person on a shared server).
DATABASE = os.environ.get("BENCH_DATABASE") or "closed_circle_bench"
LOCAL_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
WORKERS = 2


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _best(fn, times: int = 5) -> float:
    return min(_timed(fn)[1] for _ in range(times))


def _messages(fn) -> int:
    """How many messages ``fn`` sends to the database (each a round trip; a message may hold
    several statements): those sent through Django, and the pipelines of the standings'
    recompute (``groups._send``, its BEGIN and COMMIT included)."""
    from django.db import connection

    from apps.standings import groups

    sent = []

    def count(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    pipelined = groups._send

    def send(statements):
        sent.append(statements)
        return pipelined(statements)

    with connection.execute_wrapper(count), mock.patch.object(groups, "_send", send):
        fn()
    return len(sent)


def _read_games(where: str, param: int) -> int:
    """The floor of a recompute: one read of the games (white, black, result) it needs, in
    the order a recompute reads them; returns the rows read."""
    from django.db import connection

    from apps.groups.models import Game, Group

    where = where.replace("{groups}", Group._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT g.group_id, g.white_id, g.black_id, g.result FROM {Game._meta.db_table} g"
            f" WHERE {where} ORDER BY g.group_id, g.updated_at, g.number",
            [param],
        )
        return len(cursor.fetchall())


def _rewrite_rows(group_id: int) -> int:
    """The floor of storing a group's changed standings: its stored rows deleted and the
    same rows inserted again, in one statement (rolled back); returns the rows written."""
    from django.db import connection, transaction

    from apps.standings.models import GroupStanding

    table = GroupStanding._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"WITH gone AS (DELETE FROM {table} WHERE group_id = %s RETURNING *)"
            f" INSERT INTO {table} SELECT * FROM gone",
            [group_id],
        )
        transaction.set_rollback(True)
        return cursor.rowcount


def _ratio(ours: float, floor: float) -> str:
    return f"floor {floor * 1000:.2f} ms, ratio {ours / floor:.1f}×"


def database_url(env: Mapping[str, str]) -> str:
    """The bench database's URL, on the server of DATABASE_URL if that is PostgreSQL."""
    server = env.get("DATABASE_URL", "")
    if urlsplit(server).scheme not in ("postgres", "postgresql"):
        server = LOCAL_SERVER
    return urlsplit(server)._replace(path=f"/{DATABASE}").geturl()


def _create_database(url: str) -> None:
    maintenance = urlsplit(url)._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE])
        if found.fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))


def _set_up_django() -> None:
    url = database_url(os.environ)
    _create_database(url)
    from django.apps import apps

    if apps.ready:
        # Set up already (by another benchmark of this run), on this database.
        from django.core.management import call_command

        call_command("flush", interactive=False, verbosity=0)
        return
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # A DATABASE_URL turns DEBUG off, which wants a key.
    os.environ.setdefault("SECRET_KEY", "benchmark-only")
    django.setup()

    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)


def _draw_groups(job_id: int, numbers: list[int]) -> int:
    """Every group task of the job (a batch of groups each, as ``run_draw`` cuts them),
    spread over WORKERS processes; how many of them found the job complete (the one that
    completes it, and so sends the finish)."""
    from django.db import connections

    from apps.office import draw

    connections.close_all()  # each process opens a connection of its own
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        batches = draw.batches(numbers)
        completed = pool.map(functools.partial(draw.draw_groups, job_id), batches, chunksize=1)
    return sum(completed)


def run() -> list[tuple[str, float, str]]:
    _set_up_django()

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections, transaction
    from django.test import Client

    from apps.entrants.models import Entrant, StageEntry
    from apps.entrants.services import close_registration, import_entrants
    from apps.groups.models import Game, Group, Seat
    from apps.office import draw
    from apps.results.imports import import_results
    from apps.silli.entrants import entrants_csv
    from apps.silli.synth import make_entrants
    from apps.stages.models import DrawJob
    from apps.stages.services import create_tournament
    from apps.standings.groups import _read_inputs, recompute_group, recompute_stage, table_of
    from apps.standings.models import RankingFile, StageRankingRow, StandingsMark
    from apps.standings.ranking import (
        file_version,
        ranking_order,
        stage_ranking_rows,
        store_ranking,
        store_ranking_file,
    )

    try:
        user = get_user_model().objects.create_user("bench-organizer")
        cup = create_tournament(user, name="Bench Cup", slug="bench-cup", games_per_player=10)
        stage = cup.first_stage
        text = entrants_csv(make_entrants(ENTRANTS, "bench-app"))

        _, imported = _timed(lambda: import_entrants(user, stage, text))
        entrants = Entrant.objects.filter(tournament=cup).count()
        entries = StageEntry.objects.filter(stage=stage).count()
        stage, closed = _timed(lambda: close_registration(user, stage))

        # The job start_draw would create, without sending it to Celery: the bench runs the
        # job's steps itself to time each one.
        job = DrawJob.objects.create(
            stage=stage,
            seed=SEED,
            draw_settings=draw.draw_settings(stage).as_dict(),
            started_by=user,
        )
        numbers, divided = _timed(lambda: draw.prepare(job.pk))
        completing, seated = _timed(lambda: _draw_groups(job.pk, numbers))
        wrote, persisted = _timed(lambda: draw.finish(job.pk))
        job.refresh_from_db()
        groups = Group.objects.filter(stage=stage).count()
        seats = Seat.objects.filter(stage=stage).count()
        games = Game.objects.filter(group__stage=stage).count()

        # Results: every game's result in one CSV, imported for the whole stage by the
        # organizer (checked, applied, audited; the groups' standings marked once each).
        stage.status = stage.Status.PUBLISHED
        stage.save(update_fields=["status"])
        pairs = Game.objects.filter(group__stage=stage).order_by("group__number", "number")
        rows = pairs.values_list("white__code", "black__code")
        codes = ("1-0", "1/2-1/2", "0-1", "1/2-1/2", "+-")
        results_csv = "white,black,result\n" + "".join(
            f"{w},{b},{codes[i % 5]}\n" for i, (w, b) in enumerate(rows.iterator(chunk_size=5000))
        )
        # The recomputes the import queues are timed below, as the workers would run them
        # (in this process they would run inside the import's on_commit).
        with mock.patch("apps.core.freshness.Derived.queue"):
            report, imported_results = _timed(
                lambda: import_results(user, text=results_csv, stage=stage, file_format="csv")
            )
        # Standings: one group, then every group (what the import's marks queue), the ranking.
        # The ranking rebuilds they queue run in a worker, not inside them (here, without a
        # broker, each would run in this process at its commit): not queued, timed below.
        quiet = mock.patch("apps.core.freshness.Derived.queue")
        quiet.start()
        first = Group.objects.filter(stage=stage).order_by("-size", "number").first()
        finished = Game.objects.filter(group=first).count()
        # Short steps on a shared machine: the best of 20 each, every step taken in turn with
        # its floors (the same moments of the machine for both sides of a ratio).
        reads: list[float] = []

        def read_one_now() -> None:
            reads.append(_timed(lambda: _read_games("g.group_id = %s", first.pk))[1])

        recompute_group(first.pk)  # its statements prepared on this connection, as in a worker
        unchanged: list[float] = []
        for _ in range(20):
            read_one_now()
            unchanged.append(_timed(lambda: recompute_group(first.pk))[1])
        recompute_one = min(unchanged)
        one_messages = _messages(lambda: recompute_group(first.pk))
        # ... and after one result changed each time (its rows written): a game's result
        # turned over between recomputes, untimed, then back.
        turned = Game.objects.filter(group=first, result="1-0").order_by("number").first()
        assert turned is not None

        def changed_one() -> float:
            result = "0-1" if Game.objects.get(pk=turned.pk).result == "1-0" else "1-0"
            Game.objects.filter(pk=turned.pk).update(result=result)
            return _timed(lambda: recompute_group(first.pk))[1]

        # What any recompute computes between its read and its write: the tie-breaks and
        # places of the group from what was read (a preliminary: no fallback keys).
        inputs = _read_inputs(first.pk)
        loaded = Group.objects.select_related("stage__tournament").get(pk=first.pk)
        changed: list[float] = []
        computed: list[float] = []
        for _ in range(20):
            read_one_now()
            changed.append(changed_one())
            computed.append(_timed(lambda: table_of(loaded, inputs))[1])
        read_one, recompute_changed, tiebreaks = min(reads), min(changed), min(computed)
        # Last, as its rolled-back rows stay behind as dead ones until a vacuum.
        rewrite = _best(lambda: _rewrite_rows(first.pk), 20)
        parts = read_one + tiebreaks + rewrite
        Game.objects.filter(pk=turned.pk).update(result="1-0")
        recompute_group(first.pk)
        group_ids = list(Group.objects.filter(stage=stage).values_list("pk", flat=True))
        stage_games = "g.group_id IN (SELECT id FROM {groups} WHERE stage_id = %s)"
        read_all = _best(lambda: _read_games(stage_games, stage.pk), 3)
        # Every group in one pass, as the stage task runs it after the import (their marks
        # are pending); then again, and one by one (the way it was).
        pending = StandingsMark.objects.filter(pending_since__isnull=False).count()
        passed, recompute_all = _timed(lambda: recompute_stage(stage.pk, only_if_pending=True))
        again = _timed(lambda: recompute_stage(stage.pk))[1]
        one_by_one = 0.0
        if os.environ.get("BENCH_ONE_BY_ONE", "1") != "0":
            one_by_one = _timed(lambda: [recompute_group(g) for g in group_ids])[1]
        quiet.stop()
        with transaction.atomic():  # the rebuild's writing, from an empty stored ranking
            StageRankingRow.objects.filter(stage_id=stage.pk).delete()
            rebuilt, rebuild = _timed(lambda: store_ranking(stage, ranking_order(stage)))
            # ... and the ranking's CSV file it stores (ranking.csv sends it as stored)
            stored_file = _timed(lambda: store_ranking_file(stage, file_version(stage)))[1]
        csv_size = RankingFile.objects.filter(stage=stage).values_list("size", flat=True)[0]
        client = Client(HTTP_ACCEPT_ENCODING="gzip")
        address = f"/t/{stage.tournament.slug}/s/{stage.order}/ranking.csv"
        csv_get = min(_timed(lambda: client.get(address, secure=True).content)[1] for _ in range(5))
        page_1 = min(_timed(lambda: stage_ranking_rows(stage.pk, 0, 100))[1] for _ in range(5))
        page_500 = min(
            _timed(lambda: stage_ranking_rows(stage.pk, 49_900, 50_000))[1] for _ in range(5)
        )
        return [
            (
                f"import {ENTRANTS:,} entrants (import_entrants)",
                imported,
                f"{entrants:,} entrants, {entries:,} stage entries",
            ),
            ("close registration (entrants digest)", closed, stage.entrants_digest[:16]),
            (
                "draw + persist the preliminary (job steps)",
                divided + seated + persisted,
                f"{groups:,} groups, {seats:,} seats, {games:,} games, job {job.status}"
                + ("" if wrote else " (finish wrote nothing)"),
            ),
            ("  division (prepare)", divided, f"{len(numbers):,} groups to seat"),
            (
                f"  seat every group (draw_groups, {WORKERS} worker processes)",
                seated,
                f"engine step 2, batches of {draw.GROUPS_PER_TASK}; "
                f"{completing} task(s) completed the job",
            ),
            ("  persist groups, seats, games (finish)", persisted, f"digest {job.digest[:16]}"),
            (
                f"import {report.applied:,} results for the stage (CSV, import_results)",
                imported_results,
                f"{len(results_csv) / 1e6:.1f} MB; every line checked, one transaction",
            ),
            (
                "  the import and the standings of every group",
                imported_results + recompute_all,
                f"target < 60 s; {len(group_ids):,} groups in one pass",
            ),
            (
                f"  floor: one read of a group's {finished} games",
                read_one,
                "one SELECT of white, black, result; best of 40, in turn with the recomputes",
            ),
            (
                f"recompute and store one group of {first.size} ({finished} games)",
                recompute_one,
                f"recompute_group, its rows stored already, {one_messages} messages;"
                " best of 20; " + _ratio(recompute_one, read_one),
            ),
            (
                "  the same, after one result changed each time",
                recompute_changed,
                "recompute_group, its rows written; best of 20; "
                + _ratio(recompute_changed, read_one)
                + f"; {recompute_changed / (read_one + rewrite):.1f}× the read and the rewrite",
            ),
            (
                f"  floor: rewrite the group's {first.size} stored rows",
                rewrite,
                "one statement deleting them and inserting them again (rolled back); best of 20",
            ),
            (
                "  its tie-breaks and places, from what is read",
                tiebreaks,
                f"table_of; best of 20; {tiebreaks / read_one:.1f}× the read",
            ),
            (
                "  the read, the tie-breaks, the rewrite: their sum",
                parts,
                f"each alone: {parts / read_one:.1f}× the read; the recompute that writes"
                f" {recompute_changed / parts:.1f}× it",
            ),
            (
                f"  floor: one read of all {games:,} games of the stage",
                read_all,
                "one SELECT of group, white, black, result; best of 3",
            ),
            (
                f"recompute every group ({len(group_ids):,}) in one pass",
                recompute_all,
                f"recompute_stage of the {passed:,} pending of {pending:,} marked; "
                + _ratio(recompute_all, read_all),
            ),
            (
                "  again, nothing changed",
                again,
                "recompute_stage, every group; " + _ratio(again, read_all),
            ),
            (
                "  again, one by one",
                one_by_one,
                "recompute_group each (BENCH_ONE_BY_ONE=0: not run); "
                + _ratio(one_by_one, read_all),
            ),
            (
                f"store the unified ranking of the stage ({rebuilt:,} rows)",
                rebuild,
                "ranking_order + store_ranking: order by the chain, shared places, write",
            ),
            (
                "  store the ranking's CSV file (store_ranking_file)",
                stored_file,
                f"{csv_size / 1e6:.1f} MB: its lines written by PostgreSQL, gzip, in the rebuild",
            ),
            (
                "  GET ranking.csv (the stored file, gzip; Django test client)",
                csv_get,
                "best of 5; it took 2.8–3.0 s written per request",
            ),
            ("  read ranking page 1 (100 rows)", page_1, "stage_ranking_rows; best of 5"),
            ("  read ranking page 500 (100 rows)", page_500, "the same index range; best of 5"),
        ]
    finally:
        call_command("flush", interactive=False, verbosity=0)
        connections.close_all()
