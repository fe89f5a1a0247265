"""Play on the server: the actions on a game played here (docs/play.md).

Every action takes the acting user (``actor``), checks who may do it, runs in one
transaction with its audit event. A move locks the :class:`~apps.play.models.PlayedGame` row
first (``select_for_update``): two submissions of the same move take turns, and the second
finds the ply already made (409). The end of a game enters its result through the one result
action (``apps.results.services.set_result``), with the score and each move's date.

Lock order (apps/core/locking.py): a played game's row is locked before its group and its
``Game`` (which only the end of a game locks, through ``locked_game``); nothing locks a played
game while holding its group.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import chess
from django.db import connection
from django.utils import timezone

from apps.clock import DAY, Reminder, days_to_exceed
from apps.core.audit import Action, record
from apps.core.permissions import Actor
from apps.groups.models import Game
from apps.stages.models import Stage

from .clocking import control_of, refresh_deadlines
from .models import Leave, PlayedGame

START_FEN = chess.STARTING_FEN


def fresh_deadlines(stage: Stage, start: datetime) -> tuple[datetime, datetime]:
    """A game's ``loses_at`` and ``next_reminder_at`` at its start, before any leave: White's
    first move under the stage's control, and the first silence reminder (or the loss)."""
    control = control_of(stage)
    loses_at = start + days_to_exceed(control.allowance(1), control.doubling_after) * DAY
    first = [r.days for r in Reminder if r.days < stage.silence_days]
    return loses_at, start + timedelta(days=min(first, default=stage.silence_days))


def start_play(stage: Stage, at: datetime | None = None, *, actor: Actor | None = None) -> int:
    """Begin play here for the stage's games that have none yet (every game of a stage
    drawn and published, or a Swiss round's new games): one ``PlayedGame`` each at the start
    position, its clock started ``at`` (default now). Idempotent; nothing for a stage not
    played on this server. Returns how many games began.

    Called inside the publishing (or pairing) action's transaction: its caller checked who
    may do it. Set-based: one ``INSERT … SELECT``; the few games whose players have leave
    announced get their deadlines recomputed one by one.
    """
    if not stage.play_on_server:
        return 0
    start = at or timezone.now()
    loses_at, reminder_at = fresh_deadlines(stage, start)
    table = PlayedGame._meta.db_table
    games = Game._meta.db_table
    groups = Game._meta.get_field("group").related_model._meta.db_table  # type: ignore[union-attr]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (game_id, stage_id, started_at, ply, fen, finished_at, loses_at,
                next_reminder_at, reminders_sent, extra_days_white, extra_days_black,
                long_think_white, long_think_black, draw_offer_ply, draw_offer_side,
                last_offer_move_white, last_offer_move_black, ended_by, version)
            SELECT g.id, gr.stage_id, %s, 0, %s, NULL, %s, %s, 0, 0, 0, %s, %s, NULL, '',
                NULL, NULL, '', 0
            FROM {games} g JOIN {groups} gr ON gr.id = g.group_id
            WHERE gr.stage_id = %s AND g.result = ''
            ON CONFLICT (game_id) DO NOTHING
            """,
            [start, START_FEN, loses_at, reminder_at, False, False, stage.pk],
        )
        started = cursor.rowcount
    if started:
        _refresh_games_with_leave(stage, start)
        record(Action.PLAY_STARTED, actor, stage=stage, games=started, at=start.isoformat())
    return started


def _refresh_games_with_leave(stage: Stage, start: datetime) -> None:
    """Recompute the deadlines of the stage's unstarted games whose players announced leave
    (the set-based start counted none)."""
    on_leave = Leave.objects.filter(
        cancelled_at__isnull=True, ends_on__gte=start.date()
    ).values_list("user_id", flat=True)
    played = (
        PlayedGame.objects.filter(stage=stage, ply=0, finished_at__isnull=True)
        .filter(game__white__user_id__in=on_leave)
        .union(
            PlayedGame.objects.filter(stage=stage, ply=0, finished_at__isnull=True).filter(
                game__black__user_id__in=on_leave
            )
        )
    )
    for pk in [p.pk for p in played]:
        refresh_deadlines(
            PlayedGame.objects.select_related("stage", "game__white", "game__black").get(pk=pk),
            start,
        )
