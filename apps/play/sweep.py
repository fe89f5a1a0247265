"""The sweep that runs the clocks by themselves: losses on time, silence reminders, losses by
silence (docs/play-clock-ops.md).

Every open game keeps two instants (``PlayedGame.loses_at``, ``next_reminder_at``),
recomputed by each action that changes them (a move, a leave, the TD's days). The sweep takes
``now`` and finds the games due with one indexed query each, so 500,000 games in play cost
what the few due ones cost:

* ``loses_at <= now``: the side to move lost on time. The result goes through the one result
  action (``apps.results.services.set_result``: audit, standings, the result e-mails), one
  transaction per group, the group and its games locked first as every result write does.
* ``next_reminder_at <= now``: the silence of the side to move, from the last move's instant
  and both players' leave (``apps.clock.silence_since``; no game's moves are loaded), says
  what is due: a reminder (14, 28, 35 days; the TD copied on the last), or, at 40 days without
  a declaration of a long think, the loss by silence.

**Each reminder once, each loss once, however many sweeps run at once.** A reminder is
claimed by one guarded ``UPDATE`` (``WHERE reminders_sent = k AND ply = p``): of two sweeps
one updates the row, the other finds it changed and sends nothing; a move made meanwhile
changes ``ply`` and voids the claim. A loss is written under the group's lock, after reading
the game again: the second sweep finds it finished.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _

from apps.clock import Pauses, Reminder, Side, silence_since
from apps.core.results import Result
from apps.groups.models import Game
from apps.results import settling
from apps.results.services import locked_group, set_result
from apps.stages.models import Stage

from .clocking import leave_of
from .models import Move, PlayedGame

# Reminders claimed per task that e-mails them.
REMINDER_BATCH = 200


class Ending:
    """How the sweep ends a game (the result's reason says it in words)."""

    TIME = "time"
    SILENCE = "silence"


@dataclass(frozen=True)
class SweepReport:
    """What one sweep did: games lost on time and by silence, reminders claimed (each to be
    e-mailed once), games whose next silence instant was only moved on."""

    lost_on_time: int = 0
    lost_by_silence: int = 0
    reminders: int = 0
    rescheduled: int = 0


@dataclass(frozen=True)
class DueReminder:
    """A reminder a sweep claimed: the game, the ply in hand and the reminder's days."""

    game_id: int
    ply: int
    days: int


def side_to_move(ply: int) -> Side:
    """The side to move after ``ply`` half-moves."""
    return Side.of_ply(ply + 1)


def losing_result(ply: int) -> Result:
    """The result when the side to move after ``ply`` half-moves loses by the clock: a loss,
    or a forfeit when that side never moved (the game was never played by them)."""
    side = side_to_move(ply)
    moved = (ply + 1) // 2 if side is Side.WHITE else ply // 2
    if moved == 0:
        return Result.forfeit_loss(side.value)
    return Result.BLACK_WINS if side is Side.WHITE else Result.WHITE_WINS


def _open_in_play():
    """Open games of stages in play, in groups not closed (a closed group's games wait for its
    reopening; nothing is written into them)."""
    return PlayedGame.objects.filter(
        finished_at__isnull=True,
        stage__status=Stage.Status.PUBLISHED,
        game__group__closed_at__isnull=True,
    )


def sweep_clocks(now: datetime) -> SweepReport:
    """One sweep at ``now`` (tests pass their own clock; the beat task the real one)."""
    on_time = _finish_on_time(now)
    silence = _silence(now)
    return SweepReport(
        lost_on_time=on_time,
        lost_by_silence=silence.lost_by_silence,
        reminders=silence.reminders,
        rescheduled=silence.rescheduled,
    )


# ---------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------


def _finish_on_time(now: datetime) -> int:
    due = _open_in_play().filter(loses_at__lte=now).values_list("game_id", "game__group_id")
    by_group: dict[int, list[int]] = defaultdict(list)
    for game_id, group_id in due:
        by_group[group_id].append(game_id)
    return sum(
        _finish(group_id, {pk: None for pk in ids}, now, Ending.TIME)
        for group_id, ids in sorted(by_group.items())
    )


def _finish(group_id: int, expected: dict[int, int | None], now: datetime, ending: str) -> int:
    """End the games of one group by the clock, in one transaction: ``expected`` maps each
    game to the ply the sweep saw it at (None: any; a loss on time is read again from
    ``loses_at``). Returns how many games this call ended."""
    with transaction.atomic():
        # The lock order of play (apps/play/services.py): the played games' rows, then their
        # group, then their games (as a move that ends a game takes them).
        plays = (
            PlayedGame.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage")
            .filter(pk__in=sorted(expected), finished_at__isnull=True)
        )
        if ending == Ending.TIME:
            plays = plays.filter(loses_at__lte=now)
        plays = list(plays.order_by("pk"))
        if not plays:
            return 0
        locked_group(group_id)
        games = {
            g.pk: g
            for g in Game.objects.select_for_update(no_key=True, of=("self",))
            .select_related("group__stage__tournament", "white", "black")
            .filter(pk__in=[p.pk for p in plays])
            .order_by("pk")
        }
        ended = 0
        for play in plays:
            seen = expected[play.pk]
            if seen is not None and seen != play.ply:
                continue  # a move came in since the sweep looked: nothing is due any more
            game = games[play.pk]
            play.finished_at = now
            play.loses_at = play.next_reminder_at = None
            play.save(update_fields=["finished_at", "loses_at", "next_reminder_at"])
            if game.result:  # a TD entered the result meanwhile: the game is over already
                continue
            set_result(
                None,
                game,
                losing_result(play.ply),
                expected_version=game.version,
                reason=_ending_reason(ending, play, now),
                road=settling.CLOCK,
            )
            ended += 1
    return ended


def _ending_reason(ending: str, play: PlayedGame, now: datetime) -> str:
    side = side_to_move(play.ply)
    values = {
        "side": _("White") if side is Side.WHITE else _("Black"),
        "ply": play.ply + 1,
        "when": now.strftime("%Y-%m-%d %H:%M UTC"),
    }
    if ending == Ending.TIME:
        return _("%(side)s lost on time (ply %(ply)s; found %(when)s).") % values
    return _(
        "%(side)s lost by silence: %(days)s days without a move (ply %(ply)s; found %(when)s)."
    ) % {**values, "days": play.stage.silence_days}


# ---------------------------------------------------------------------------
# Silence: reminders and the loss at 40 days
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _SilenceCounts:
    lost_by_silence: int = 0
    reminders: int = 0
    rescheduled: int = 0


def _silence(now: datetime) -> _SilenceCounts:
    last_move = Move.objects.filter(game=OuterRef("pk"), ply=OuterRef("ply")).values("played_at")
    rows = list(
        _open_in_play()
        .filter(next_reminder_at__lte=now)
        .annotate(last_move_at=Subquery(last_move[:1]))
        .values_list(
            "game_id",
            "game__group_id",
            "ply",
            "started_at",
            "last_move_at",
            "reminders_sent",
            "long_think_white",
            "long_think_black",
            "game__white__user_id",
            "game__black__user_id",
            "stage__silence_days",
        )
    )
    if not rows:
        return _SilenceCounts()
    leave = leave_of(sorted({u for row in rows for u in row[8:10] if u is not None}))
    lost: dict[int, dict[int, int | None]] = defaultdict(dict)
    claims: list[tuple[int, int, int, int, datetime | None, Reminder | None]] = []
    for game_id, group_id, ply, started, moved, sent, think_w, think_b, white, black, limit in rows:
        since = moved or started
        side = side_to_move(ply)
        declared = think_w if side is Side.WHITE else think_b
        report = silence_since(
            since,
            Pauses(leave.get(white, []) + leave.get(black, [])),
            max(now, since),
            side=side,
            ply=ply + 1,
            declared_at=since if declared else None,
            limit=limit,
        )
        if report.lost:
            lost[group_id][game_id] = ply
            continue
        due = len(report.reminders_due)
        reminder = report.reminders_due[-1] if due > sent else None
        claims.append((game_id, ply, sent, max(due, sent), report.next_due_at, reminder))
    reminders = _claim(claims)
    with_reminder = len(reminders)
    _queue_reminders(reminders)
    ended = sum(
        _finish(group_id, games, now, Ending.SILENCE) for group_id, games in sorted(lost.items())
    )
    return _SilenceCounts(ended, with_reminder, len(claims) - with_reminder)


def _claim(
    claims: list[tuple[int, int, int, int, datetime | None, Reminder | None]],
) -> list[DueReminder]:
    """Write each game's reminders sent and next instant, guarded by what the sweep read
    (the reminders sent and the ply), so of two sweeps only one claims a reminder; returns
    the reminders this call claimed."""
    claimed: list[DueReminder] = []
    with transaction.atomic():
        for game_id, ply, sent, now_sent, next_at, reminder in sorted(claims):
            updated = PlayedGame.objects.filter(
                pk=game_id, ply=ply, reminders_sent=sent, finished_at__isnull=True
            ).update(reminders_sent=now_sent, next_reminder_at=next_at)
            if updated and reminder is not None:
                claimed.append(DueReminder(game_id, ply + 1, reminder.days))
    return claimed


def _queue_reminders(reminders: list[DueReminder]) -> None:
    if not reminders:
        return
    from . import tasks  # the tasks call this module

    batches = [
        [(r.game_id, r.ply, r.days) for r in reminders[i : i + REMINDER_BATCH]]
        for i in range(0, len(reminders), REMINDER_BATCH)
    ]
    for batch in batches:
        transaction.on_commit(lambda batch=batch: tasks.send_reminders.delay(batch))
