"""A played game's clock: the pure ``apps.clock`` fed from the database.

:func:`game_times` gathers what the clock knows of a :class:`~apps.play.models.PlayedGame` —
its start, its moves' dates, both players' leave (``Leave`` rows of the entrants' accounts,
cancelled ones left out) and the days a TD added — and :func:`clock_of` answers the clock
report under the stage's time control (:func:`control_of`). :func:`silence_of` is the silence
of the side to move under the stage's ``silence_days``.

:func:`refresh_deadlines` stores the two instants the sweep looks for (``loses_at``,
``next_reminder_at``); every action that changes them (a move, a leave, days added, a
declaration) calls it in its transaction. The rules: docs/clock.md, docs/play.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from django.db import connection
from django.utils.dateparse import parse_datetime

from apps.clock import (
    DAY,
    ClockReport,
    Fischer,
    GameTimes,
    MovesInDays,
    Reminder,
    Side,
    TimeControl,
    clock_report,
    days_in,
)
from apps.clock import Leave as LeavePeriod
from apps.stages.models import Stage

from .models import ConditionalLine, Leave, Move, PlayedGame


def control_of(stage: Stage) -> TimeControl:
    """The stage's time control, as the clock engine takes it."""
    if stage.time_control == Stage.TimeControl.FISCHER:
        return Fischer(
            base=stage.fischer_base,
            increment=stage.fischer_increment,
            doubling_after=stage.doubling_after,
        )
    return MovesInDays(
        moves=stage.tc_moves, days=stage.tc_days, doubling_after=stage.doubling_after
    )


def players_users(played: PlayedGame) -> tuple[int | None, int | None]:
    """The accounts of White and Black (None: an entrant not linked to an account)."""
    game = played.game
    return game.white.user_id, game.black.user_id


def leave_of(user_ids: Sequence[int | None]) -> dict[int, list[LeavePeriod]]:
    """The leave (not cancelled) of each account, as clock periods."""
    wanted = [pk for pk in user_ids if pk is not None]
    periods: dict[int, list[LeavePeriod]] = {pk: [] for pk in wanted}
    if not wanted:
        return periods
    rows = Leave.objects.filter(user_id__in=wanted, cancelled_at__isnull=True).values_list(
        "user_id", "starts_on", "ends_on"
    )
    for user_id, starts_on, ends_on in rows:
        periods[user_id].append(LeavePeriod(starts_on, ends_on))
    return periods


def game_times(played: PlayedGame, moves: Sequence[datetime] | None = None) -> GameTimes:
    """What the clock knows of ``played`` (its game with both players loaded); ``moves``: the
    moves' dates when the caller has them already. Without them the moves, both players'
    leave and whether conditional lines wait are read in one statement
    (:func:`read_inputs`; the last is kept on ``played.has_conditionals``)."""
    white, black = players_users(played)
    read_with_lock = played.__dict__.pop("clock_inputs", None)
    if moves is None and read_with_lock is not None:
        moves, leave, played.has_conditionals = read_with_lock
    elif moves is None:
        moves, leave, played.has_conditionals = read_inputs(played)
    else:
        leave = leave_of([white, black])
    return GameTimes(
        start=played.started_at,
        moves=tuple(moves),
        white_leave=tuple(leave.get(white, ())) if white is not None else (),
        black_leave=tuple(leave.get(black, ())) if black is not None else (),
        white_extra_days=played.extra_days_white,
        black_extra_days=played.extra_days_black,
    )


def _instant(value: datetime | str) -> datetime:
    moment = parse_datetime(value) if isinstance(value, str) else value
    if moment is None:
        raise ValueError(f"not a date and time: {value!r}")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _day(value: date | str) -> date:
    return date.fromisoformat(value[:10]) if isinstance(value, str) else value


def read_inputs(
    played: PlayedGame,
) -> tuple[list[datetime], dict[int, list[LeavePeriod]], bool]:
    """The game's moves' dates (in order), both players' leave (not cancelled) and whether
    conditional lines wait, in one round trip (a move's hot path)."""
    white, black = players_users(played)
    users = [pk for pk in (white, black) if pk is not None] or [0]
    marks = ", ".join(["%s"] * len(users))
    moves_table, leave_table = Move._meta.db_table, Leave._meta.db_table
    lines_table = ConditionalLine._meta.db_table
    sql = f"""
        SELECT 0, played_at, CAST(NULL AS date), CAST(NULL AS date), 0, ply
        FROM {moves_table} WHERE game_id = %s
        UNION ALL
        SELECT 1, NULL, starts_on, ends_on, user_id, 0
        FROM {leave_table} WHERE user_id IN ({marks}) AND cancelled_at IS NULL
        UNION ALL
        SELECT 2, NULL, NULL, NULL, 0, 0 WHERE EXISTS (
            SELECT 1 FROM {lines_table} WHERE game_id = %s AND cancelled_at IS NULL
        )
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [played.pk, *users, played.pk])
        rows = cursor.fetchall()
    moves = sorted((ply, _instant(at)) for kind, at, _s, _e, _u, ply in rows if kind == 0)
    leave: dict[int, list[LeavePeriod]] = {pk: [] for pk in users}
    for kind, _at, starts_on, ends_on, user_id, _ply in rows:
        if kind == 1:
            leave[user_id].append(LeavePeriod(_day(starts_on), _day(ends_on)))
    lines = any(row[0] == 2 for row in rows)
    return [at for _ply, at in moves], leave, lines


def inputs_columns(played: str, white: str, black: str) -> list[str]:
    """PostgreSQL: what :func:`read_inputs` reads, as three columns of the statement that
    locks the played game (aliases: the played game ``played``, the entrants ``white`` and
    ``black``), read back by :func:`inputs_from` (one round trip less on a move)."""
    moves_table, leave_table = Move._meta.db_table, Leave._meta.db_table
    lines_table = ConditionalLine._meta.db_table
    return [
        f"(SELECT array_agg(played_at ORDER BY ply) FROM {moves_table} "
        f"WHERE game_id = {played}.game_id)",
        f"(SELECT array_agg(user_id || ' ' || starts_on || ' ' || ends_on) FROM {leave_table} "
        f"WHERE user_id IN ({white}.user_id, {black}.user_id) AND cancelled_at IS NULL)",
        f"EXISTS (SELECT 1 FROM {lines_table} "
        f"WHERE game_id = {played}.game_id AND cancelled_at IS NULL)",
    ]


def inputs_from(
    played: PlayedGame, values: Sequence
) -> tuple[list[datetime], dict[int, list[LeavePeriod]], bool]:
    """The values of :func:`inputs_columns` as :func:`read_inputs` answers them."""
    dates, leave_rows, lines = values
    white, black = players_users(played)
    leave: dict[int, list[LeavePeriod]] = {pk: [] for pk in (white, black) if pk is not None}
    for text in leave_rows or ():
        user_id, starts_on, ends_on = text.split()
        leave.setdefault(int(user_id), []).append(LeavePeriod(_day(starts_on), _day(ends_on)))
    return [_instant(at) for at in dates or ()], leave, bool(lines)


def extended(times: GameTimes, moment: datetime, plies: int = 1) -> GameTimes:
    """``times`` with ``plies`` more moves made at ``moment``."""
    return replace(times, moves=(*times.moves, *([moment] * plies)))


def clock_of(played: PlayedGame, now: datetime, times: GameTimes | None = None) -> ClockReport:
    """The clock report of ``played`` at ``now`` (at its last move if ``now`` is earlier, and
    at its finish once finished)."""
    times = times or game_times(played)
    as_of = max(now, times.last_move)
    if played.finished_at is not None:
        as_of = max(times.last_move, min(as_of, played.finished_at))
    return clock_report(control_of(played.stage), times, as_of)


@dataclass(frozen=True)
class Silence:
    """The silence of the side to move: days without a move, the reminders due by now, the
    instant of the loss by silence (None: the player declared a long think), and the instant
    of the next thing due after ``reminders_sent`` reminders (a reminder or the loss)."""

    side: Side
    since: datetime
    days_silent: int
    reminders_due: tuple[Reminder, ...]
    loses_at: datetime | None
    next_due_at: datetime | None
    lost: bool


def silence_of(played: PlayedGame, now: datetime, times: GameTimes | None = None) -> Silence:
    """The silence of ``played``'s side to move at ``now`` under the stage's
    ``silence_days`` (reminders at 14, 28 and 35 days, those before the loss only)."""
    times = times or game_times(played)
    now = max(now, times.last_move)
    since, pauses = times.last_move, times.pauses
    side = times.side_to_move
    limit = played.stage.silence_days
    days_silent = days_in(pauses.running(since, now))
    reminders = [r for r in Reminder if r.days < limit]
    due = tuple(r for r in reminders if r.days <= days_silent)
    declared = played.long_think_white if side is Side.WHITE else played.long_think_black
    loses_at = None if declared else pauses.instant_after(since, limit * DAY)
    upcoming = [pauses.instant_after(since, r.days * DAY) for r in reminders]
    upcoming = upcoming[played.reminders_sent :]
    if loses_at is not None:
        upcoming.append(loses_at)
    return Silence(
        side=side,
        since=since,
        days_silent=days_silent,
        reminders_due=due,
        loses_at=loses_at,
        next_due_at=min(upcoming, default=None),
        lost=loses_at is not None and loses_at <= now,
    )


def refresh_deadlines(
    played: PlayedGame, now: datetime, *, save: bool = True, times: GameTimes | None = None
) -> PlayedGame:
    """Set ``played.loses_at`` (the instant the side to move loses on time if it does not
    move, leave included) and ``played.next_reminder_at`` (its next silence reminder due
    after the ``reminders_sent`` already sent, or the loss by silence); both None once the
    game is finished. Saved (those two columns) unless ``save`` is False; ``times``: the
    game's clock inputs when the caller has them."""
    if played.finished_at is not None or played.game.result:
        played.loses_at = played.next_reminder_at = None
    else:
        times = times or game_times(played)
        played.loses_at = clock_of(played, now, times).runs_out_at
        played.next_reminder_at = silence_of(played, now, times).next_due_at
    if save:
        PlayedGame.objects.filter(pk=played.pk).update(
            loses_at=played.loses_at, next_reminder_at=played.next_reminder_at
        )
    return played
