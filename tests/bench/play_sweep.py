"""The clock sweep at scale (``python -m tests.bench --only play_sweep``, PostgreSQL): 500,000
games in play here, made as bulk rows (100,000 entrants, 1,000 groups of 500 games), most of
them far from any deadline and a few thousand due — losses on time, reminders, losses by
silence — then one sweep (``apps.play.sweep.sweep_clocks``), then a second one that finds
nothing. The issue asks for a sweep under 10 s at this size.

Tasks the sweep queues (the result and reminder e-mails, the standings recomputes) are
counted, not run: workers send them. The database is the benchmarks' own
(``tests/bench/app.py``: ``BENCH_DATABASE``, emptied before and after).

``BENCH_PLAY_GAMES`` runs it at another size; ``BENCH_PLAY_DUE`` sets how many of each kind
are due (default 1,000 losses on time, 2,000 reminders, 300 losses by silence).
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from unittest import mock

GAMES = int(os.environ.get("BENCH_PLAY_GAMES") or 500_000)
DUE = os.environ.get("BENCH_PLAY_DUE") or "1000,2000,300"
PER_GROUP = 500
NOW = datetime(2027, 6, 1, 12, tzinfo=UTC)
DAY = timedelta(days=1)


def _make(losses: int, reminders: int, silent: int):
    """The tournament, its stage in play here, the entrants, groups, games, played games and
    the moves the due games' silence reads; returns the stage."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from apps.core.bulk import insert_rows
    from apps.entrants.models import Entrant
    from apps.groups.models import Game, Group
    from apps.play.models import Move, PlayedGame
    from apps.stages.models import Stage
    from apps.stages.services import create_tournament

    user = get_user_model().objects.create_user("bench-play")
    cup = create_tournament(user, name="Bench Play", slug="bench-play", games_per_player=10)
    stage = cup.first_stage
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.PUBLISHED, play_on_server=True)
    groups = max(1, GAMES // PER_GROUP)
    players = groups * 100
    with transaction.atomic():
        insert_rows(
            Entrant,
            ("tournament_id", "code", "name", "nation", "person", "email"),
            ((cup.pk, f"P{i:06d}", f"Player {i}", "ITA", f"P{i:06d}", "") for i in range(players)),
        )
        first_entrant = (
            Entrant.objects.filter(tournament=cup).order_by("pk").values_list("pk", flat=True)[0]
        )
        insert_rows(
            Group,
            ("stage_id", "number", "size"),
            ((stage.pk, n, 100) for n in range(1, groups + 1)),
        )
        group_ids = list(
            Group.objects.filter(stage=stage).order_by("number").values_list("pk", flat=True)
        )

        def games():
            for g, group_id in enumerate(group_ids):
                base = first_entrant + g * 100
                for n in range(PER_GROUP):
                    yield (group_id, n + 1, base + n % 100, base + (n * 7 + 1) % 100)

        insert_rows(Game, ("group_id", "number", "white_id", "black_id"), games())
        game_ids = list(
            Game.objects.filter(group__stage=stage).order_by("pk").values_list("pk", flat=True)
        )
        # Spread the due games over the groups: every k-th game.
        step = max(1, len(game_ids) // (losses + reminders + silent + 1))
        due = game_ids[::step]
        lose, remind, silence = (
            set(due[:losses]),
            set(due[losses : losses + reminders]),
            set(due[losses + reminders : losses + reminders + silent]),
        )
        started = NOW - 60 * DAY
        last_move = {pk: NOW - 15 * DAY for pk in remind} | {pk: NOW - 41 * DAY for pk in silence}

        def played():
            for pk in game_ids:
                if pk in lose:
                    loses, reminder, ply = NOW - DAY, NOW + 5 * DAY, 0
                elif pk in last_move:
                    loses, reminder, ply = NOW + 20 * DAY, last_move[pk] + 14 * DAY, 2
                else:  # not due: a move made yesterday
                    loses, reminder, ply = NOW + 30 * DAY, NOW + 13 * DAY, 2
                yield (pk, stage.pk, started, ply, "startpos", loses, reminder)

        insert_rows(
            PlayedGame,
            ("game_id", "stage_id", "started_at", "ply", "fen", "loses_at", "next_reminder_at"),
            played(),
        )
        insert_rows(
            Move,
            ("game_id", "ply", "san", "uci", "played_at"),
            (
                row
                for pk in sorted(last_move)
                for row in ((pk, 1, "e4", "e2e4", started), (pk, 2, "e5", "e7e5", last_move[pk]))
            ),
        )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return stage


def run() -> list[tuple[str, float, str]]:
    from .app import _set_up_django

    _set_up_django()
    from django.core.management import call_command
    from django.db import connections

    from apps.play.models import PlayedGame
    from apps.play.sweep import sweep_clocks

    losses, reminders, silent = (int(x) for x in DUE.split(","))
    try:
        start = time.perf_counter()
        _make(losses, reminders, silent)
        made = time.perf_counter() - start
        games = PlayedGame.objects.count()
        queued: list[str] = []

        def count(task, *args, **kwargs):
            queued.append(task.name)

        with mock.patch("celery.app.task.Task.apply_async", autospec=True, side_effect=count):
            start = time.perf_counter()
            first = sweep_clocks(NOW)
            swept = time.perf_counter() - start
            start = time.perf_counter()
            second = sweep_clocks(NOW + timedelta(minutes=10))
            idle = time.perf_counter() - start
        return [
            ("make the played games (bulk rows)", made, f"{games:,} games in play"),
            (
                f"sweep {games:,} games, {losses + reminders + silent:,} due",
                swept,
                f"lost on time {first.lost_on_time}, by silence {first.lost_by_silence}, "
                f"reminders {first.reminders}, rescheduled {first.rescheduled}; "
                f"{len(queued):,} tasks queued",
            ),
            (
                f"sweep {games:,} games again, 10 minutes later",
                idle,
                f"nothing due: {second}",
            ),
        ]
    finally:
        call_command("flush", interactive=False, verbosity=0)
        connections.close_all()
