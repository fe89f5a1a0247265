"""Silence: days without a move, the reminders, the loss at 40 days (docs/clock.md §6)."""

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given

from apps.clock import Fischer, GameTimes, Leave, Reminder, Side, clock_report, silence_report

from .strategies import games

START = datetime(2027, 3, 1, 12, tzinfo=UTC)
GAME = GameTimes(START, [START])  # White moved at once: Black is to move since 1 March 12:00


def at(days: float, hours: float = 0) -> datetime:
    return START + timedelta(days=days, hours=hours)


@pytest.mark.parametrize(
    ("days", "due"),
    [
        (13.9, ()),
        (14, (Reminder.FIRST,)),
        (27.9, (Reminder.FIRST,)),
        (28, (Reminder.FIRST, Reminder.SECOND)),
        (35, (Reminder.FIRST, Reminder.SECOND, Reminder.LAST)),
    ],
)
def test_reminders_at_14_28_and_35_days(days, due):
    report = silence_report(GAME, at(days))
    assert (report.side, report.ply, report.since) == (Side.BLACK, 2, START)
    assert report.reminders_due == due and not report.lost


def test_only_the_last_reminder_is_copied_to_the_td():
    assert [r.copies_td for r in Reminder] == [False, False, True]
    assert [r.days for r in Reminder] == [14, 28, 35]


def test_forty_days_without_a_move_lose_the_game():
    just_before = silence_report(GAME, at(40) - timedelta(microseconds=1))
    assert just_before.days_silent == 39 and not just_before.lost
    assert just_before.next_due_at == at(40)
    report = silence_report(GAME, at(40))
    assert report.days_silent == 40 and report.lost and report.loses_at == at(40)
    assert report.next_due_at is None


def test_a_declaration_before_the_fortieth_day_lifts_the_silence_loss():
    report = silence_report(GAME, at(45), declared_at=at(39))
    assert report.declared and not report.lost and report.loses_at is None
    assert report.reminders_due == tuple(Reminder)


def test_a_declaration_after_the_fortieth_day_comes_too_late():
    report = silence_report(GAME, at(45), declared_at=at(40))
    assert not report.declared and report.lost


def test_leave_of_either_player_is_not_silence():
    # White on leave 5-14 March 2027: ten days that do not count as Black's silence
    leave = [Leave(date(2027, 3, 5), date(2027, 3, 14))]
    game = GameTimes(START, [START], white_leave=leave)
    assert silence_report(game, at(20)).days_silent == 10
    assert silence_report(game, at(50)).loses_at == at(50)


def test_the_next_due_instant_is_the_next_reminder():
    assert silence_report(GAME, at(1)).next_due_at == at(14)
    assert silence_report(GAME, at(14)).next_due_at == at(28)
    assert silence_report(GAME, at(36)).next_due_at == at(40)
    assert silence_report(GAME, at(36), declared_at=at(2)).next_due_at is None


def test_silence_is_asked_of_a_moment_not_before_the_last_move():
    with pytest.raises(ValueError, match="before the last move"):
        silence_report(GAME, at(-1))
    with pytest.raises(ValueError, match="after now"):
        silence_report(GAME, at(3), declared_at=at(4))


@given(games())
def test_silence_is_the_days_used_of_the_move_in_hand_and_changes_only_when_due(case):
    game, now = case
    report = silence_report(game, now)
    in_hand = clock_report(Fischer(base=10**6, doubling_after=None), game, now).in_hand
    assert report.days_silent == in_hand.days_used and report.since == in_hand.began
    assert report.reminders_due == tuple(r for r in Reminder if r.days <= report.days_silent)
    assert report.lost == (report.days_silent >= 40)
    if report.next_due_at is None:
        assert report.lost
        return
    assert report.next_due_at > now
    later = silence_report(game, report.next_due_at)
    assert (later.reminders_due, later.lost) != (report.reminders_due, report.lost)
    just_before = silence_report(game, report.next_due_at - timedelta(microseconds=1))
    assert (just_before.reminders_due, just_before.lost) == (report.reminders_due, report.lost)
