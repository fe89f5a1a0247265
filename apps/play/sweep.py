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
from datetime import UTC, datetime
from functools import partial

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _

from apps.clock import Pauses, Reminder, Side, silence_since
from apps.core.audit import Action, record_many
from apps.core.bulk import update_rows
from apps.core.results import Result
from apps.groups.models import Game, Group
from apps.results.services import SystemResult, set_system_results
from apps.stages.models import Stage

from .clocking import leave_of
from .models import ConditionalLine, Move, PlayedGame
from .services import PLAY_ROAD, End, game_pgn

# Reminders claimed per task that e-mails them; games ended per transaction.
REMINDER_BATCH = 200
LOSS_BATCH = 500
CLAIM_BATCH = 5000


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
    """The result when the side to move after ``ply`` half-moves loses by the clock: the
    opponent wins, as when the loser's own late move finds the time gone
    (``apps.play.services``)."""
    return Result.BLACK_WINS if side_to_move(ply) is Side.WHITE else Result.WHITE_WINS


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


@dataclass(frozen=True)
class _Due:
    """A game the sweep found lost: the ply it saw (None: read ``loses_at`` again under the
    lock) and the instant of the loss (None: ``loses_at``)."""

    ply: int | None = None
    at: datetime | None = None


def _batches(items: list, size: int = LOSS_BATCH) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _finish_on_time(now: datetime) -> int:
    due = sorted(_open_in_play().filter(loses_at__lte=now).values_list("game_id", flat=True))
    return sum(_end_games({pk: _Due() for pk in batch}, now, End.TIME) for batch in _batches(due))


def _end_games(due: dict[int, _Due], now: datetime, end: End) -> int:
    """End these games by the clock in one transaction (``end``: on time or by silence).
    Locked in play's order (apps/play/services.py): the played games' rows, their groups
    (in id order), their games. A game moved meanwhile (another ply), finished, or in a
    group closed meanwhile is left alone. Returns how many results this call entered."""
    with transaction.atomic():
        plays = (
            PlayedGame.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage__tournament", "game")
            .filter(pk__in=sorted(due), finished_at__isnull=True)
            .order_by("pk")
        )
        if end is End.TIME:
            plays = plays.filter(loses_at__lte=now)
        found = [p for p in plays if due[p.pk].ply in (None, p.ply)]
        if not found:
            return 0
        groups = {
            g.pk: g
            for g in Group.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage")
            .filter(pk__in=sorted({p.game.group_id for p in found}))
            .order_by("pk")
        }
        found = [
            p
            for p in found
            if not groups[p.game.group_id].is_closed
            and groups[p.game.group_id].stage.status == Stage.Status.PUBLISHED
        ]
        games = {
            g.pk: g
            for g in Game.objects.select_for_update(no_key=True, of=("self",))
            .select_related("group__stage__tournament", "white", "black")
            .filter(pk__in=[p.pk for p in found])
            .order_by("pk")
        }
        scores: dict[int, list[tuple[str, datetime]]] = defaultdict(list)
        for game_id, uci, at in (
            Move.objects.filter(game_id__in=[p.pk for p in found])
            .order_by("game_id", "ply")
            .values_list("game_id", "uci", "played_at")
        ):
            scores[game_id].append((uci, at))
        changes = []
        for play in found:
            at = due[play.pk].at or play.loses_at or now
            play.finished_at, play.ended_by = at, end.value
            play.loses_at = play.next_reminder_at = None
            play.draw_offer_side, play.draw_offer_ply = "", None
            play.version += 1
            play.game = games[play.pk]
            if play.game.result:  # a TD entered the result meanwhile: the game is over
                continue
            result = losing_result(play.ply)
            changes.append(
                SystemResult(
                    play.game,
                    result,
                    _ending_reason(end, play, at),
                    at.astimezone(UTC).date(),
                    game_pgn(play, result, end, scores[play.pk]),
                )
            )
        update_rows(
            PlayedGame,
            PLAY_END_COLUMNS,
            ((p.pk, *(getattr(p, c) for c in PLAY_END_COLUMNS)) for p in found),
        )
        ConditionalLine.objects.filter(
            game_id__in=[p.pk for p in found], cancelled_at__isnull=True
        ).update(cancelled_at=now)
        ended = set_system_results(None, changes, road=PLAY_ROAD)
        plays_by_pk = {p.pk: p for p in found}
        record_many(
            Action.PLAY_GAME_ENDED,
            None,
            (
                (
                    g.group.stage,
                    g.group,
                    g,
                    {"result": g.result, "ended_by": end.value, "ply": plays_by_pk[g.pk].ply},
                )
                for g in ended
            ),
        )
    return len(ended)


# What the end of a game changes on its played game's row.
PLAY_END_COLUMNS = (
    "finished_at",
    "ended_by",
    "loses_at",
    "next_reminder_at",
    "draw_offer_side",
    "draw_offer_ply",
    "version",
)


def _ending_reason(end: End, play: PlayedGame, at: datetime) -> str:
    side = side_to_move(play.ply)
    values = {
        "side": _("White") if side is Side.WHITE else _("Black"),
        "ply": play.ply + 1,
        "when": at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if end is End.TIME:
        return _("%(side)s lost on time at %(when)s (ply %(ply)s).") % values
    return _(
        "%(side)s lost by silence at %(when)s: %(days)s days without a move (ply %(ply)s)."
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
    leave = leave_of(sorted({u for row in rows for u in row[7:9] if u is not None}))
    lost: dict[int, _Due] = {}
    claims: list[tuple[int, int, int, int, datetime | None, Reminder | None]] = []
    for game_id, ply, started, moved, sent, think_w, think_b, white, black, limit in rows:
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
            lost[game_id] = _Due(ply, report.loses_at)
            continue
        due = len(report.reminders_due)
        reminder = report.reminders_due[-1] if due > sent else None
        claims.append((game_id, ply, sent, max(due, sent), report.next_due_at, reminder))
    reminders = written = 0
    for batch in _batches(claims, CLAIM_BATCH):
        claimed, wrote = _claim(batch)
        reminders, written = reminders + len(claimed), written + wrote
    ended = sum(
        _end_games({pk: lost[pk] for pk in batch}, now, End.SILENCE)
        for batch in _batches(sorted(lost))
    )
    return _SilenceCounts(ended, reminders, written - reminders)


def _claim(
    claims: list[tuple[int, int, int, int, datetime | None, Reminder | None]],
) -> tuple[list[DueReminder], int]:
    """Write each game's reminders sent and next instant, if the game is still as the sweep
    read it (its ply and its reminders sent): the rows are locked first, so of two sweeps the
    second reads what the first wrote and claims nothing. One transaction, one read and one
    write for them all; returns the reminders this call claimed and the rows it wrote."""
    read = {game_id: (ply, sent) for game_id, ply, sent, _n, _at, _r in claims}
    claimed: list[DueReminder] = []
    rows = []
    with transaction.atomic():
        now_is = dict(
            (pk, (ply, sent))
            for pk, ply, sent in PlayedGame.objects.select_for_update(no_key=True)
            .filter(pk__in=sorted(read), finished_at__isnull=True)
            .order_by("pk")
            .values_list("pk", "ply", "reminders_sent")
        )
        for game_id, ply, sent, now_sent, next_at, reminder in claims:
            if now_is.get(game_id) != (ply, sent):
                continue  # moved, ended or claimed by another sweep since it was read
            rows.append((game_id, now_sent, next_at))
            if reminder is not None:
                claimed.append(DueReminder(game_id, ply + 1, reminder.days))
        update_rows(PlayedGame, ("reminders_sent", "next_reminder_at"), rows)
        _queue_reminders(claimed)
    return claimed, len(rows)


def _queue_reminders(reminders: list[DueReminder]) -> None:
    if not reminders:
        return
    from . import tasks  # the tasks call this module

    for batch in _batches(reminders, REMINDER_BATCH):
        transaction.on_commit(
            partial(tasks.send_reminders.delay, [(r.game_id, r.ply, r.days) for r in batch])
        )
