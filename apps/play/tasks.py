"""Celery tasks of play on the server: thin wrappers around ``sweep``, ``leave`` and
``notices``.

``sweep_clocks`` runs from Celery beat (every ``PLAY_SWEEP_SECONDS``, default ten minutes):
losses on time, silence reminders and losses by silence. Two sweeps at once do each thing
once (``apps/play/sweep.py``), so a late beat or a retried task is harmless. The e-mail tasks
may run again and send each message once (``apps.notifications.delivery``).
"""

from __future__ import annotations

from datetime import date, timedelta

from celery import shared_task
from django.utils import timezone

from apps.notifications.delivery import send_all
from apps.notifications.tasks import RETRY

from . import notices, sweep


@shared_task(**RETRY)
def sweep_clocks() -> dict[str, int]:
    """Beat: one sweep of the clocks at the current time."""
    report = sweep.sweep_clocks(timezone.now())
    return {
        "lost_on_time": report.lost_on_time,
        "lost_by_silence": report.lost_by_silence,
        "reminders": report.reminders,
        "rescheduled": report.rescheduled,
    }


@shared_task(**RETRY)
def send_reminders(reminders: list[tuple[int, int, int]]) -> int:
    """E-mail the silence reminders a sweep claimed: ``(game, ply in hand, days)`` each."""
    return send_all(notices.reminder_messages([tuple(r) for r in reminders]))


@shared_task(**RETRY)
def leave_changed(leave_id: int, cancelled: bool = False) -> int:
    """Tell the opponents of a player who took (or cancelled) a leave."""
    return send_all(notices.leave_messages(leave_id, cancelled))


@shared_task(**RETRY)
def move_made(game_id: int, ply: int) -> int:
    """Tell the player to move of their opponent's move (call on the move's commit)."""
    return send_all(notices.move_messages(game_id, ply))


@shared_task(**RETRY)
def send_move_digests(day: str | None = None) -> int:
    """Beat, every morning: queue one digest task per user who asked for the digest of
    their opponents' moves on ``day`` (ISO date, UTC; default yesterday)."""
    the_day = date.fromisoformat(day) if day else timezone.now().date() - timedelta(days=1)
    users = notices.digest_users()
    for user_id in users:
        send_move_digest.delay(user_id, the_day.isoformat())
    return len(users)


@shared_task(**RETRY)
def send_move_digest(user_id: int, day: str) -> int:
    return send_all(notices.digest_messages(user_id, date.fromisoformat(day)))


@shared_task(**RETRY)
def claim_to_td(event_id: int) -> int:
    """E-mail the group's TD a claim they decide (a tablebase or other claim's audit event)."""
    return send_all(notices.claim_messages(event_id))
