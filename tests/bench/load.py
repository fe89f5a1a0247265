"""The public site at 100,000 entrants, served by gunicorn: page timings and a bounded read load.

1. A published preliminary of ENTRANTS entrants (default 100,000; BENCH_LOAD_ENTRANTS): the
   app benchmark's import, draw and persistence (tests/bench/app.py), the product's
   ``publish_draw``, then results for SHARE of the games by the product's simulator
   (``simulate_results``), whose wall time and peak memory growth (ru_maxrss, in a process
   of its own) are printed; then the stage's ranking is rebuilt and its published files
   stored, as the workers would, so every page reads stored standings.
2. gunicorn (GUNICORN_ARGS, or BENCH_LOAD_GUNICORN) on a free loopback port, DEBUG off, on
   that database, tasks in-process (no CELERY_BROKER_URL), its static files collected into
   a temporary directory.
3. Each public page requested alone: best and median of TRIES, as a browser asks (gzip).
4. The bounded read load of tests/load: USERS users for SECONDS seconds (BENCH_LOAD_SECONDS),
   back to back (the site's throughput), then paced to RATE requests/s offered in all; the
   clients run in CLIENTS processes of their own (BENCH_LOAD_CLIENTS), not in this one.
5. The gunicorn workers' peak memory (VmHWM).

Every step that builds the data runs in a child process with its own Django set-up on this
benchmark's database, ``closed_circle_bench_load`` (BENCH_LOAD_DATABASE), on DATABASE_URL's
server when that is PostgreSQL, else on 127.0.0.1:5432 as role postgres. gunicorn is stopped
and the database emptied at the end, also on failure. The site's responses are timed whether
or not a cache of public pages answers them; when one says so (an ``X-Cache`` header), the
lines show it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parents[2]
ENTRANTS = int(os.environ.get("BENCH_LOAD_ENTRANTS") or 100_000)
DATABASE = os.environ.get("BENCH_LOAD_DATABASE") or "closed_circle_bench_load"
LOCAL_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
SEED = "bench load"
SHARE = 0.5  # of the games given a result by the simulator
# Kept after trying 3 × 4 gthread, 4 sync, 2 × 8 and 5 × 2 gthread on this 2-core machine
# (closed loop, 64 users: 30–39 requests/s against 24–27 for the others).
GUNICORN_ARGS = (
    os.environ.get("BENCH_LOAD_GUNICORN") or "--workers 3 --worker-class gthread --threads 4"
).split()
TRIES = 5
SLOW = 0.150  # a page answered alone slower than this is flagged
USERS = 64
SECONDS = float(os.environ.get("BENCH_LOAD_SECONDS") or 20)
RATE = 320.0
# One client process sends 240 requests/s for ~0.1 core (tried): enough for both modes.
CLIENTS = int(os.environ.get("BENCH_LOAD_CLIENTS") or 1)
# The Redis database the web workers keep their copies of public pages in (emptied).
PAGE_CACHE = os.environ.get("BENCH_LOAD_CACHE_URL") or "redis://127.0.0.1:6379/9"
GROUPS = 64  # the load's users read this many groups (user n group n mod GROUPS)


def database_url(env) -> str:
    server = env.get("DATABASE_URL", "")
    if urlsplit(server).scheme not in ("postgres", "postgresql"):
        server = LOCAL_SERVER
    return urlsplit(server)._replace(path=f"/{DATABASE}").geturl()


def _env(url: str, **more: str) -> dict[str, str]:
    """The environment of the children and of gunicorn: this database, DEBUG off, tasks in
    process, no shared cache."""
    env = {**os.environ, "DATABASE_URL": url, "BENCH_DATABASE": DATABASE, **more}
    env.setdefault("SECRET_KEY", "benchmark-only")
    for name in ("DEBUG", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
        env.pop(name, None)
    return env


def _child(step: str, url: str, tmp: Path) -> dict:
    """Run ``step`` of this module in a child process; its JSON answer."""
    out = tmp / f"{step}.json"
    log = tmp / f"{step}.log"
    with log.open("wb") as output:
        done = subprocess.run(
            [sys.executable, "-m", "tests.bench.load", step, str(out)],
            cwd=ROOT,
            env=_env(url),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    if done.returncode:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the {step} step failed ({done.returncode}):\n{tail}")
    return json.loads(out.read_text())


def _empty(url: str) -> None:
    """Every table of the benchmark's database emptied (what ``flush`` does), by SQL: it
    works whatever state a failed run left."""
    maintenance = urlsplit(url)._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE])
        if found.fetchone() is None:
            return
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                "AND tablename <> 'django_migrations'"
            )
        ]
        if tables:
            names = sql.SQL(", ").join(sql.Identifier(t) for t in tables)
            conn.execute(sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(names))


# ---------------------------------------------------------------------------
# The child steps (a Django of their own on the benchmark's database)
# ---------------------------------------------------------------------------


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _quiet_queues():
    """What the workers would do later is done by the steps themselves: no recompute or
    ranking rebuild runs in-process from a commit hook (in-process, each group's recompute
    would rebuild the whole ranking)."""
    return mock.patch("apps.core.freshness.Derived.queue")


def build(out: Path) -> None:
    """Import, close, draw, persist (the app benchmark's steps), publish."""
    from . import app

    app._set_up_django()  # BENCH_DATABASE is this benchmark's: created, migrated, emptied
    from django.contrib.auth import get_user_model

    from apps.entrants.services import close_registration, import_entrants
    from apps.groups.models import Game, Group
    from apps.office import draw
    from apps.office.services import publish_draw
    from apps.silli.entrants import entrants_csv
    from apps.silli.synth import make_entrants
    from apps.stages.models import DrawJob
    from apps.stages.services import create_tournament

    user = get_user_model().objects.create_user("bench-organizer")
    cup = create_tournament(user, name="Bench Cup", slug="bench-cup", games_per_player=10)
    stage = cup.first_stage
    text = entrants_csv(make_entrants(ENTRANTS, "bench-load"))
    _, imported = _timed(lambda: import_entrants(user, stage, text))
    stage = close_registration(user, stage)
    job = DrawJob.objects.create(
        stage=stage, seed=SEED, draw_settings=draw.draw_settings(stage).as_dict(), started_by=user
    )
    started = time.perf_counter()
    numbers = draw.prepare(job.pk)
    app._draw_groups(job.pk, numbers)
    draw.finish(job.pk)
    drawn = time.perf_counter() - started
    stage.refresh_from_db()
    with _quiet_queues():
        stage, published = _timed(lambda: publish_draw(user, stage))
    out.write_text(
        json.dumps(
            {
                "stage": stage.pk,
                "imported": imported,
                "drawn": drawn,
                "published": published,
                "groups": Group.objects.filter(stage=stage).count(),
                "games": Game.objects.filter(group__stage=stage).count(),
            }
        )
    )


def _peak_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def simulate(out: Path) -> None:
    """The simulator in a process that did nothing else (its memory growth is its own);
    then the ranking and the published files, as the workers would leave them."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from apps.groups.models import Group
    from apps.office import publication
    from apps.results.simulate import simulate_results
    from apps.stages.models import Stage
    from apps.standings.models import GroupStanding, RankingMark, StageRankingRow, StandingsMark
    from apps.standings.ranking import rebuild_ranking

    user = get_user_model().objects.get(username="bench-organizer")
    stage = Stage.objects.select_related("tournament").get(tournament__slug="bench-cup", order=1)
    before = _peak_kb()
    with _quiet_queues():
        entered, simulated = _timed(
            lambda: simulate_results(user, stage, share=SHARE, seed="bench load")
        )
    after = _peak_kb()
    ranked, rebuilt = _timed(lambda: rebuild_ranking(stage.pk, wait_for_groups=False))
    files, stored = _timed(lambda: publication.store_files(stage.pk))
    groups = Group.objects.filter(stage=stage)
    out.write_text(
        json.dumps(
            {
                "entered": entered,
                "simulated": simulated,
                "peak_before_kb": before,
                "peak_after_kb": after,
                "ranked": ranked,
                "rebuilt": rebuilt,
                "files": files,
                "stored": stored,
                "groups": groups.count(),
                "groups_with_standings": groups.filter(standings_at__isnull=False).count(),
                "standing_rows": GroupStanding.objects.filter(group__stage=stage).count(),
                "pending_groups": StandingsMark.objects.filter(
                    group__stage=stage, pending_since__isnull=False
                ).count(),
                "ranking_rows": StageRankingRow.objects.filter(stage=stage).count(),
                "ranking_pending": RankingMark.objects.filter(
                    stage=stage, pending_since__isnull=False
                ).exists(),
                **_addresses(stage),
            }
        )
    )


def _addresses(stage) -> dict:
    """What the page addresses need: the first group, a player's code and name, the pages."""
    from apps.groups.models import Game, Group, Seat

    group = Group.objects.filter(stage=stage).order_by("number").first()
    seat = Seat.objects.filter(group=group).select_related("entrant").order_by("pk").first()
    game = Game.objects.filter(group=group).exclude(result="").order_by("number").first()
    surname = seat.entrant.name.split(",")[0]
    return {
        "slug": stage.tournament.slug,
        "order": stage.order,
        "group_id": group.pk,
        "group_number": group.number,
        "game_number": game.number if game else 1,
        "code": seat.entrant.code,
        "fragment": surname[1:6].lower(),
    }


# ---------------------------------------------------------------------------
# gunicorn
# ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _static(tmp: Path, url: str) -> dict[str, str]:
    """Settings that collect the static files into ``tmp`` (DEBUG off serves the hashed
    copies through WhiteNoise); the environment that uses them."""
    (tmp / "bench_load_settings.py").write_text(
        f"from config.settings import *  # noqa: F403\nSTATIC_ROOT = {str(tmp / 'static')!r}\n"
    )
    env = _env(
        url,
        DJANGO_SETTINGS_MODULE="bench_load_settings",
        PYTHONPATH=os.pathsep.join([str(tmp), str(ROOT)]),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # plain http on loopback
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        SECURE_HSTS_SECONDS="0",
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return env


def _start_gunicorn(env: dict[str, str], tmp: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    with (tmp / "gunicorn.log").open("ab") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                *GUNICORN_ARGS,
                "--log-level",
                "warning",
                "--graceful-timeout",
                "10",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        status, _, _ = _get(f"{base}/api/stages/", timeout=5)
        if status == 200:
            return process, base
        time.sleep(0.5)
    _stop(process)
    tail = (tmp / "gunicorn.log").read_text(errors="replace")[-3000:]
    raise RuntimeError(f"gunicorn did not start (exit {process.returncode}):\n{tail}")


def _workers(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ---------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------


def _get(url: str, *, gzip_ok: bool = True, timeout: float = 60) -> tuple[int, int, str]:
    """Status, bytes received, X-Cache (or "")."""
    headers = {"Accept-Encoding": "gzip"} if gzip_ok else {}
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=timeout
        ) as r:
            return r.status, len(r.read()), r.headers.get("X-Cache", "")
    except urllib.error.HTTPError as error:
        return error.code, 0, error.headers.get("X-Cache", "")
    except (urllib.error.URLError, OSError):
        return 599, 0, ""


def _pages(base: str, a: dict, groups: int) -> list[tuple[str, str, bool]]:
    """(label, address, gzip) of every public page timed alone."""
    stage = f"{base}/t/{a['slug']}/s/{a['order']}"
    group = f"{stage}/g/{a['group_number']}"
    last = -(-groups // 100)  # the stage page lists 100 groups a page
    api = f"{base}/api/groups/{a['group_id']}"
    return [
        ("home", f"{base}/", True),
        ("tournament", f"{base}/t/{a['slug']}/", True),
        ("stage page 1", f"{stage}/", True),
        (f"stage page {last} (last)", f"{stage}/?page={last}", True),
        (f"group {a['group_number']}", f"{group}/", True),
        ("standings", f"{group}/standings/", True),
        ("crosstable", f"{group}/crosstable/", True),
        (f"game page (game {a['game_number']})", f"{group}/games/{a['game_number']}/", True),
        ("ranking page 1", f"{stage}/ranking/", True),
        ("ranking page 500", f"{stage}/ranking/?page=500", True),
        ("find player: exact code", f"{base}/t/{a['slug']}/find/?q={a['code']}", True),
        (
            f"find player: name '{a['fragment']}'",
            f"{base}/t/{a['slug']}/find/?q={a['fragment']}",
            True,
        ),
        ("API group", f"{api}/", True),
        ("API group standings", f"{api}/standings/", True),
        ("DRAW.json (gzip)", f"{stage}/files/DRAW.json", True),
        ("DRAW.json (plain)", f"{stage}/files/DRAW.json", False),
        ("ranking CSV", f"{stage}/ranking.csv", True),
        ("entrants file (files/entrants.csv)", f"{stage}/files/entrants.csv", True),
    ]


def _time_page(label: str, url: str, gzip_ok: bool) -> tuple[str, float, str]:
    """Best (the seconds) and median of TRIES requests; when a page cache answers them
    (``X-Cache: hit``), also the best and median of TRIES requests it cannot answer — the
    same address with a query parameter of its own each time, which the views ignore — so
    the page as rendered is timed too (after one such request, so no worker is cold)."""
    took, statuses, caches = [], Counter(), Counter()
    size = 0
    for _ in range(TRIES):
        started = time.perf_counter()
        status, size, cache = _get(url, gzip_ok=gzip_ok)
        took.append(time.perf_counter() - started)
        statuses[status] += 1
        if cache:
            caches[cache] += 1
    median = statistics.median(took)
    detail = (
        f"median {1000 * median:.0f} ms; "
        + ", ".join(f"{s}×{n}" for s, n in sorted(statuses.items()))
        + f"; {size / 1000:.1f} kB{' gzip' if gzip_ok else ''}"
    )
    slowest = median
    if caches:
        detail += "; X-Cache " + ", ".join(f"{c}×{n}" for c, n in caches.items())
        rendered = []
        glue = "&" if "?" in url else "?"
        for n in range(TRIES + 1):
            started = time.perf_counter()
            _get(f"{url}{glue}bench={time.time_ns()}{n}", gzip_ok=gzip_ok)
            rendered.append(time.perf_counter() - started)
        rendered = rendered[1:]
        slowest = statistics.median(rendered)
        detail += (
            f"; rendered (not from the cache): best {1000 * min(rendered):.0f} ms,"
            f" median {1000 * slowest:.0f} ms"
        )
    if max(median, slowest) > SLOW:
        detail += f"; OVER {1000 * SLOW:.0f} ms"
    return (f"GET {label}", min(took), detail)


def _flush(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def _warm(base: str) -> int:
    """Ask for every address the load reads, once: the crowd then reads warm copies."""
    from tests.load.__main__ import targets

    addresses = sorted({a for kinds in targets(base, GROUPS) for a in kinds.values()})
    for address in addresses:
        _get(address)
    return len(addresses)


def _load(base: str, tmp: Path, name: str, rate: float | None, static: str = "") -> dict:
    """tests/load's client in CLIENTS processes of its own, their results merged (``static``:
    every user reads only that address)."""
    from tests.load.__main__ import LoadResult

    runs = []
    for n in range(CLIENTS):
        users = USERS // CLIENTS + (n < USERS % CLIENTS)
        command = [
            sys.executable,
            "-m",
            "tests.load",
            "--base",
            base,
            "--users",
            str(users),
            "--seconds",
            str(SECONDS),
            "--groups",
            str(GROUPS),
            "--gzip",
            "--json",
            str(tmp / f"{name}-{n}.json"),
        ]
        if rate:
            command += ["--rate", str(rate * users / USERS)]
        if static:
            command += ["--static", static]
        with (tmp / f"{name}-{n}.log").open("wb") as output:
            runs.append(
                subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
            )
    try:
        for n, process in enumerate(runs):
            process.wait(SECONDS + 120)
            if process.returncode:
                tail = (tmp / f"{name}-{n}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"load client {n} failed ({process.returncode}):\n{tail}")
    finally:
        for process in runs:
            if process.poll() is None:
                process.kill()
                process.wait()
    parts = [json.loads((tmp / f"{name}-{n}.json").read_text()) for n in range(CLIENTS)]
    return LoadResult.merge(parts)


def _static_address(base: str) -> str:
    """A static file as the site serves it (its hashed name, from the home page)."""
    import re

    _, body = _fetch_body(base + "/")
    found = re.search(rb'href="(/static/[^"]+\.css)"', body)
    if not found:
        raise RuntimeError("no stylesheet on the home page")
    return found.group(1).decode()


def _fetch_body(url: str) -> tuple[int, bytes]:
    from tests.load.__main__ import fetch

    return fetch(url)


def _ratio(label: str, a, b, what: str = "per_second") -> tuple[str, float, str]:
    """``a``'s figure over ``b``'s, as a line."""
    from tests.load.__main__ import summary

    top, bottom = summary(a)[what], summary(b)[what]
    ratio = top / bottom if bottom else float("inf")
    return (label, 0.0, f"{ratio:.2f}× ({top:.1f} / {bottom:.1f})")


def _load_lines(result, mode: str) -> list[tuple[str, float, str]]:
    from tests.load.__main__ import percentile, summary

    s = summary(result)
    offered = f"{result.rate:.0f} req/s offered, " if result.rate else ""
    late = f", {result.late} sent late" if result.rate else ""
    lines = [
        (
            f"{mode}: {result.users} users, {CLIENTS} client processes",
            result.seconds,
            f"{offered}{s['per_second']:.1f} req/s, {s['errors']} errors, p50 {s['p50']:.0f} ms, "
            f"p95 {s['p95']:.0f} ms, p99 {s['p99']:.0f} ms{late}",
        )
    ]
    for kind, ts in sorted(result.timings.items()):
        lines.append(
            (
                f"  {kind}",
                statistics.median(ts),
                f"{len(ts)} requests, {result.errors.get(kind, 0)} errors, "
                f"p95 {1000 * percentile(ts, 0.95):.0f} ms, "
                f"p99 {1000 * percentile(ts, 0.99):.0f} ms",
            )
        )
    return lines


# ---------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------


def run() -> list[tuple[str, float, str]]:
    url = database_url(os.environ)
    tmp = Path(tempfile.mkdtemp(prefix="bench-load-"))
    server: subprocess.Popen | None = None
    lines: list[tuple[str, float, str]] = []
    try:
        built = _child("build", url, tmp)
        lines += [
            (f"import {ENTRANTS:,} entrants", built["imported"], "import_entrants"),
            (
                "draw + persist the preliminary (job steps)",
                built["drawn"],
                f"{built['groups']:,} groups, {built['games']:,} games",
            ),
            (
                "publish (publish_draw)",
                built["published"],
                "in-process tasks: published files, start lists (recomputes left to the "
                "simulator's)",
            ),
        ]
        sim = _child("simulate", url, tmp)
        growth = (sim["peak_after_kb"] - sim["peak_before_kb"]) / 1024
        lines += [
            (
                f"simulate_results (share {SHARE})",
                sim["simulated"],
                f"{sim['entered']:,} results; peak RSS +{growth:.0f} MB "
                f"({sim['peak_before_kb'] / 1024:.0f} → {sim['peak_after_kb'] / 1024:.0f} MB "
                "ru_maxrss, own process); withdrawals and every group's recompute included",
            ),
            (
                "rebuild the stage ranking (rebuild_ranking)",
                sim["rebuilt"],
                f"{sim['ranking_rows']:,} rows; pending: {sim['ranking_pending']}",
            ),
            (
                "store the published files (store_files)",
                sim["stored"],
                f"{sim['files']} files; standings of {sim['groups_with_standings']:,}/"
                f"{sim['groups']:,} groups ({sim['standing_rows']:,} rows), "
                f"{sim['pending_groups']} pending",
            ),
        ]
        if sim["groups_with_standings"] != sim["groups"] or not sim["ranking_rows"]:
            raise RuntimeError(f"standings or ranking missing: {sim}")

        env = _static(tmp, url)
        # The shared cache, as in production (docker-compose.yml): the workers' copies of
        # public pages are kept there, in a database of its own, emptied before and after.
        env["CACHE_URL"] = PAGE_CACHE
        _flush(PAGE_CACHE)
        (server, base), started = _timed(lambda: _start_gunicorn(env, tmp))
        lines.append(
            (
                "gunicorn up (" + " ".join(GUNICORN_ARGS) + ")",
                started,
                f"{base}, DEBUG off, tasks in-process, CACHE_URL {PAGE_CACHE}",
            )
        )
        lines += [_time_page(*page) for page in _pages(base, sim, sim["groups"])]
        warmed, took = _timed(lambda: _warm(base))
        lines.append(
            (
                "warm the page cache (each load address once)",
                took,
                f"{warmed} addresses; {warmed / took:.0f} a second",
            )
        )

        floor = _load(base, tmp, "static", None, _static_address(base))
        lines += _load_lines(floor, "floor: one static file, closed loop")
        closed = _load(base, tmp, "closed", None)
        lines += _load_lines(closed, "closed loop")
        lines.append(_ratio("pages from cache / a static file, requests/s", closed, floor))
        paced = _load(base, tmp, "paced", RATE)
        lines += _load_lines(paced, "paced")
        # Every copy gone at once under the same crowd (a deploy, a flushed cache): one
        # render per page while the others wait or get the copy before.
        _flush(PAGE_CACHE)
        cleared = _load(base, tmp, "cleared", None)
        lines += _load_lines(cleared, "closed loop from a cleared cache")
        lines.append(_ratio("cleared cache / warm, p95", cleared, closed, "p95"))

        workers = _workers(server.pid)
        peaks = [_vm_hwm_mb(pid) for pid in workers]
        lines.append(
            (
                f"gunicorn workers' peak memory ({len(workers)} workers)",
                0.0,
                "VmHWM "
                + ", ".join(f"{mb:.0f}" for mb in peaks)
                + f" MB; master {_vm_hwm_mb(server.pid):.0f} MB",
            )
        )
        return lines
    finally:
        if server is not None:
            _stop(server)
        if not os.environ.get("BENCH_LOAD_KEEP"):  # e.g. to profile a page on the data after
            _empty(url)
        _flush(PAGE_CACHE)
        shutil.rmtree(tmp, ignore_errors=True)


def _child_main() -> None:
    step, out = sys.argv[1], Path(sys.argv[2])
    {"build": build, "simulate": simulate}[step](out)


if __name__ == "__main__":
    _child_main()
