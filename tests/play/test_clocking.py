"""A played game's clock from the database: control, moves' dates, leave, the TD's days
(apps.play.clocking)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from apps.clock import Fischer, MovesInDays
from apps.play.clocking import clock_of, control_of, refresh_deadlines, silence_of
from apps.play.models import Leave, Move, PlayedGame
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks)


def test_the_control_is_the_stages(world):
    stage = world.stage
    assert control_of(stage) == MovesInDays(10, 50, 20)
    stage.time_control, stage.doubling_after = "fischer", None
    assert control_of(stage) == Fischer(30, 3, None)


def test_a_leave_of_either_player_moves_the_deadlines_by_its_days(world):
    # Black's leave of 10 days (from 2027-01-10) stops White's clock on the first move.
    Leave.objects.create(
        user=world.users["black"], starts_on=date(2027, 1, 10), ends_on=date(2027, 1, 19)
    )
    played = refresh_deadlines(world.fresh(), START)
    assert played.loses_at == START + timedelta(days=46)
    assert played.next_reminder_at == START + timedelta(days=24)
    stored = PlayedGame.objects.get(pk=played.pk)
    assert (stored.loses_at, stored.next_reminder_at) == (played.loses_at, played.next_reminder_at)


def test_a_cancelled_leave_does_not_count(world):
    leave = Leave.objects.create(
        user=world.users["white"], starts_on=date(2027, 1, 10), ends_on=date(2027, 1, 19)
    )
    leave.cancelled_at = START
    leave.save()
    assert refresh_deadlines(world.fresh(), START).loses_at == START + timedelta(days=36)


def test_days_added_by_the_td_count_in_the_allowance(world):
    PlayedGame.objects.filter(pk=world.game.pk).update(extra_days_white=10)
    played = world.fresh()
    report = clock_of(played, START + timedelta(days=1))
    assert report.white.days_left == 59
    # 60 days left with doubling after 20: lost at the 41st day.
    assert refresh_deadlines(played, START).loses_at == START + timedelta(days=41)


def test_after_a_move_the_opponents_clock_and_silence_run(world):
    Move.objects.create(game=world.played, ply=1, san="e4", uci="e2e4", played_at=START)
    PlayedGame.objects.filter(pk=world.game.pk).update(ply=1)
    played = world.fresh()
    now = START + timedelta(days=15)
    report = clock_of(played, now)
    assert (report.white.days_left, report.black.days_left) == (50, 35)
    silence = silence_of(played, now)
    assert (silence.side, silence.days_silent, silence.lost) == ("black", 15, False)
    assert [r.days for r in silence.reminders_due] == [14]


def test_the_stages_silence_days_decide_the_loss(world):
    world.stage.silence_days = 20
    world.stage.save()
    played = world.fresh()
    played.reminders_sent = 1
    assert silence_of(played, START).next_due_at == START + timedelta(days=20)
    assert silence_of(played, START + timedelta(days=20)).lost


def test_a_declared_long_think_lifts_the_silence_loss_only(world):
    PlayedGame.objects.filter(pk=world.game.pk).update(long_think_white=True, reminders_sent=3)
    played = refresh_deadlines(world.fresh(), START)
    assert played.next_reminder_at is None
    assert played.loses_at == START + timedelta(days=36)
