"""Moves through the API on PostgreSQL: ``POST /api/games/{id}/moves/`` (goal: at least 200
moves a second on this machine), and ``GET /api/games/{id}/play/``.

A stage played on this server (100 entrants in groups of 20, 4 games each: 200 games) is drawn and
published; each game's two players then play the same 20-ply opening through DRF's full
stack (authentication, throttle, parsing, the action with its lock, audit and deadlines),
in process with the test client, one request after the other (``sequential``), and split
over PROCESSES processes with a database connection each (``parallel``, as that many web
workers would). The write throttle is lifted for the run.

It runs in the bench database of tests/bench/app.py (``BENCH_DATABASE``), emptied before
and after. Set ``CELERY_BROKER_URL`` (Redis) to measure what production does: each move
queues its e-mail task there; without a broker the task (the e-mail's rendering) runs in the
request, as on the embedded default.
"""

from __future__ import annotations

import multiprocessing
import os
import time

from . import app as app_bench
from . import load as load_bench

ENTRANTS = int(os.environ.get("BENCH_PLAY_ENTRANTS") or 100)
PROCESSES = 2
# A Ruy Lopez, 20 plies: no capture, no check, no repetition, no end (BENCH_PLAY_PLIES
# plays fewer).
RUY_LOPEZ = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7"
OPENING = RUY_LOPEZ.split()[: int(os.environ.get("BENCH_PLAY_PLIES") or 20)]


def _setup() -> list[tuple[int, int, int]]:
    """The published stage's games: (game id, White's user id, Black's user id)."""
    from django.contrib.auth import get_user_model

    from apps.entrants.models import Entrant
    from apps.entrants.services import close_registration, import_entrants
    from apps.groups.models import Game
    from apps.office import draw
    from apps.office.services import publish_draw
    from apps.silli.entrants import entrants_csv
    from apps.silli.synth import make_entrants
    from apps.stages.models import DrawJob
    from apps.stages.services import create_tournament

    users = get_user_model().objects
    organizer = users.create_user("bench-play-organizer")
    cup = create_tournament(
        organizer,
        name="Play Bench",
        slug="play-bench",
        games_per_player=4,
        stages=[{"min_group_size": 20, "play_on_server": True}],
    )
    stage = cup.first_stage
    import_entrants(
        organizer, stage, entrants_csv(make_entrants(ENTRANTS, "bench-play", multi_entry_share=0))
    )
    stage = close_registration(organizer, stage)
    job = DrawJob.objects.create(
        stage=stage, seed="bench-play", draw_settings=draw.draw_settings(stage).as_dict()
    )
    numbers = draw.prepare(job.pk)
    for number in numbers:
        draw.draw_groups(job.pk, [number])
    draw.finish(job.pk)
    job.refresh_from_db()
    if job.error:
        raise AssertionError(f"the draw failed: {job.error}")
    stage.refresh_from_db()
    with load_bench._quiet_queues():
        publish_draw(organizer, stage)
    for entrant in Entrant.objects.filter(tournament=cup):
        entrant.user = users.create_user(f"bench-play-{entrant.code}")
        entrant.save(update_fields=["user"])
    return list(
        Game.objects.filter(group__stage=stage)
        .order_by("pk")
        .values_list("pk", "white__user_id", "black__user_id")
    )


def _play(games: list[tuple[int, int, int]]) -> int:
    """Play the opening in ``games`` through the API; the moves stored."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    users = {u.pk: u for u in get_user_model().objects.filter(username__startswith="bench-play-")}
    clients: dict[int, APIClient] = {}

    def client(user_id: int) -> APIClient:
        if user_id not in clients:
            clients[user_id] = APIClient()
            clients[user_id].force_authenticate(users[user_id])
        return clients[user_id]

    stored = 0
    for ply, san in enumerate(OPENING):
        for game_id, white, black in games:
            response = client(black if ply % 2 else white).post(
                f"/api/games/{game_id}/moves/",
                {"move": san, "after_ply": ply},
                format="json",
                secure=True,
            )
            if response.status_code != 201:
                raise AssertionError(
                    f"game {game_id} ply {ply}: {response.status_code} {response.content!r}"
                )
            stored += 1
    return stored


def _play_in_child(games: list[tuple[int, int, int]]) -> int:
    from django.db import connections

    connections.close_all()
    with _no_throttle():
        return _play(games)


def _no_throttle():
    from unittest import mock

    from rest_framework.settings import api_settings

    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "write": None}
    return mock.patch.object(api_settings, "DEFAULT_THROTTLE_RATES", rates)


def _reset(games: list[tuple[int, int, int]]) -> None:
    """Every game back at the start (moves, audit events of moves and deadlines)."""
    from apps.core.models import AuditEvent
    from apps.play.models import Move, PlayedGame
    from apps.play.services import START_FEN

    ids = [g for g, _w, _b in games]
    Move.objects.filter(game_id__in=ids).delete()
    AuditEvent.objects.filter(action="play.move").delete()
    PlayedGame.objects.filter(pk__in=ids).update(ply=0, fen=START_FEN, version=0)


def run() -> list[tuple[str, float, str]]:
    app_bench._set_up_django()
    from django.core.management import call_command
    from django.db import connections
    from rest_framework.test import APIClient

    try:
        games = _setup()
        if not games:
            return [("moves through the API (skipped)", 0.0, "the draw made no games")]
        with _no_throttle():
            start, cpu = time.perf_counter(), time.process_time()
            moves = _play(games)
            sequential = time.perf_counter() - start
            # The web process's CPU (the test client's share included): on a shared machine
            # steadier than the wall time.
            cpu_per_move = (time.process_time() - cpu) / moves * 1000
        _reset(games)
        connections.close_all()
        halves = [games[i::PROCESSES] for i in range(PROCESSES)]
        start = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(PROCESSES) as pool:
            parallel_moves = sum(pool.map(_play_in_child, halves))
        parallel = time.perf_counter() - start
        reader = APIClient()
        game_id, white, _black = games[0]
        from django.contrib.auth import get_user_model

        reader.force_authenticate(get_user_model().objects.get(pk=white))
        reads = 200
        start = time.perf_counter()
        for _ in range(reads):
            assert reader.get(f"/api/games/{game_id}/play/", secure=True).status_code == 200
        read = time.perf_counter() - start
        return [
            (
                f"{moves} moves through the API, one at a time",
                sequential,
                f"{moves / sequential:.0f} moves/s (goal ≥ 200), "
                f"{cpu_per_move:.1f} ms CPU a move in the web process",
            ),
            (
                f"{parallel_moves} moves through the API, {PROCESSES} processes",
                parallel,
                f"{parallel_moves / parallel:.0f} moves/s (goal ≥ 200)",
            ),
            (
                f"{reads} reads of a game's state at ply {len(OPENING)}",
                read,
                f"{reads / read:.0f} reads/s",
            ),
        ]
    finally:
        connections.close_all()
        call_command("flush", interactive=False, verbosity=0)
