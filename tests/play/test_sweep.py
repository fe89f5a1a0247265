"""The sweep runs the clocks by itself (docs/play-clock-ops.md): a game whose time ran out is
lost on time, one left 40 days without a move is lost by silence, the reminders at 14, 28 and
35 days go once each; leave stops both clocks. A test clock: the sweep takes ``now``."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.groups.models import Game, Group
from apps.play import sweep as sweep_module
from apps.play.models import Leave, PlayedGame
from apps.play.sweep import SweepReport, losing_result, sweep_clocks
from apps.standings.models import GroupStanding
from tests.play.clockworld import moved, restamp, world
from tests.worlds.play import START as T0

__all__ = ["world"]

DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


def sweep(capture, now) -> SweepReport:
    with capture(execute=True):
        return sweep_clocks(now)


def result_of(played: PlayedGame) -> str:
    return Game.objects.get(pk=played.pk).result


def test_a_game_whose_time_ran_out_is_lost_on_time_when_the_sweep_finds_it(
    world, django_capture_on_commit_callbacks, mailoutbox
):
    # White's second move is due since 14:00 on 1 March; 36 days used are charged 52 of 50.
    played = moved(world, [T0 + timedelta(hours=1), T0 + timedelta(hours=2)])
    assert played.loses_at == T0 + timedelta(hours=2) + 36 * DAY
    before = sweep(django_capture_on_commit_callbacks, played.loses_at - SECOND)
    assert before.lost_on_time == 0 and result_of(played) == ""
    mailoutbox.clear()

    found = sweep(django_capture_on_commit_callbacks, played.loses_at + 3 * DAY)

    assert found.lost_on_time == 1
    assert result_of(played) == "0-1"
    due = played.loses_at
    played.refresh_from_db()
    # It ended when the time ran out, not when the sweep came by.
    assert (played.finished_at, played.ended_by) == (due, "time")
    game = Game.objects.get(pk=played.pk)
    assert game.finished_on == due.date()
    assert "[%date 2027-01-04T12:00:00Z]" in game.pgn and '[Termination "time forfeit"]' in game.pgn
    assert AuditEvent.objects.filter(action=Action.PLAY_GAME_ENDED, game_id=played.pk).count() == 1
    assert (played.loses_at, played.next_reminder_at) == (None, None)
    event = AuditEvent.objects.get(action=Action.RESULT_ENTERED, game_id=played.pk)
    assert event.actor is None and "lost on time" in event.data["reason"]
    # Through the result action: the group's standings are marked for a recompute, and both
    # players are e-mailed the result with its reason.
    assert GroupStanding.objects.filter(group_id=world.group.pk).exists()
    results = [m for m in mailoutbox if "0-1" in m.subject]
    assert len(results) == 2 and all("lost on time" in m.body for m in results)
    assert sweep(django_capture_on_commit_callbacks, due + 4 * DAY) == SweepReport()


def test_the_side_to_move_loses_and_the_opponent_wins():
    assert losing_result(0) == "0-1"  # White to move, even before their first move
    assert losing_result(1) == "1-0"
    assert losing_result(2) == "0-1"


def test_a_game_nobody_moved_in_is_lost_on_time_by_white_after_36_days(
    world, django_capture_on_commit_callbacks
):
    # The row as start_play wrote it (its instants compare with the sweep's at the very same
    # instant, on SQLite's text as on PostgreSQL's timestamps).
    played = PlayedGame.objects.get(pk=world.game.pk)
    assert played.loses_at == T0 + 36 * DAY
    assert sweep(django_capture_on_commit_callbacks, T0 + 36 * DAY - SECOND).lost_on_time == 0
    assert sweep(django_capture_on_commit_callbacks, T0 + 36 * DAY).lost_on_time == 1
    assert result_of(played) == "0-1"


def _fast_opening(world) -> PlayedGame:
    """Twenty plies in twenty minutes: White's 11th move has 100 days, so silence (40 days)
    comes before the clock (61 days used are charged 102)."""
    return moved(world, [T0 + ply * timedelta(minutes=1) for ply in range(1, 21)])


def test_reminders_go_once_each_and_forty_days_of_silence_lose_the_game(
    world, django_capture_on_commit_callbacks, mailoutbox
):
    played = _fast_opening(world)
    since = T0 + 20 * timedelta(minutes=1)
    assert played.next_reminder_at == since + 14 * DAY
    assert played.loses_at == since + 61 * DAY
    entrant_address = world.game.white.email
    mailoutbox.clear()  # the start lists

    first = sweep(django_capture_on_commit_callbacks, since + 14 * DAY)
    assert first.reminders == 1
    played.refresh_from_db()
    assert (played.reminders_sent, played.next_reminder_at) == (1, since + 28 * DAY)
    [mail] = mailoutbox
    assert mail.to == [entrant_address] and "14 days" in mail.subject
    assert "/accounts/login/?next=" in mail.body  # the player's way in, back to the game

    # Again at once: nothing more.
    assert sweep(django_capture_on_commit_callbacks, since + 14 * DAY + SECOND) == SweepReport()
    assert len(mailoutbox) == 1

    # A sweep missed the 28th day: at 39 days only the last reminder goes, copied to the TD.
    mailoutbox.clear()
    late = sweep(django_capture_on_commit_callbacks, since + 39 * DAY)
    assert late.reminders == 1
    assert sorted(m.to[0] for m in mailoutbox) == sorted([entrant_address, world.users["td"].email])
    assert all("35 days" in m.subject for m in mailoutbox)
    played.refresh_from_db()
    assert (played.reminders_sent, played.next_reminder_at) == (3, since + 40 * DAY)

    assert sweep(django_capture_on_commit_callbacks, since + 40 * DAY - SECOND) == SweepReport()
    lost = sweep(django_capture_on_commit_callbacks, since + 40 * DAY)
    assert lost.lost_by_silence == 1 and result_of(played) == "0-1"
    event = AuditEvent.objects.get(action=Action.RESULT_ENTERED, game_id=played.pk)
    assert "lost by silence" in event.data["reason"]


def test_a_declared_long_think_is_not_lost_by_silence_but_still_by_the_clock(
    world, django_capture_on_commit_callbacks
):
    played = _fast_opening(world)
    PlayedGame.objects.filter(pk=played.pk).update(long_think_white=True)
    since = T0 + 20 * timedelta(minutes=1)
    assert sweep(django_capture_on_commit_callbacks, since + 36 * DAY).reminders == 1
    at_forty = sweep(django_capture_on_commit_callbacks, since + 45 * DAY)
    assert at_forty.lost_by_silence == 0 and result_of(played) == ""
    played.refresh_from_db()
    assert played.next_reminder_at is None  # nothing more to remind of
    assert sweep(django_capture_on_commit_callbacks, since + 61 * DAY).lost_on_time == 1
    assert result_of(played) == "0-1"


def test_leave_stops_both_clocks_and_the_sweep_finds_the_loss_later(
    world, django_capture_on_commit_callbacks
):
    # White to move; Black (not to move) takes ten days of leave: White's clock stops too.
    played = moved(world, [T0 + timedelta(hours=1), T0 + timedelta(hours=2)])
    without = played.loses_at
    Leave.objects.create(
        user=world.users["black"], starts_on=(T0 + 5 * DAY).date(), ends_on=(T0 + 14 * DAY).date()
    )
    played = restamp(world, T0 + 2 * DAY)
    assert played.loses_at == without + 10 * DAY
    assert played.next_reminder_at == T0 + timedelta(hours=2) + 24 * DAY
    assert sweep(django_capture_on_commit_callbacks, without).lost_on_time == 0
    assert sweep(django_capture_on_commit_callbacks, without + 10 * DAY).lost_on_time == 1


def test_a_move_made_meanwhile_voids_the_sweeps_claim(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    played = _fast_opening(world)
    since = T0 + 20 * timedelta(minutes=1)
    claim = sweep_module._claim

    def move_first(claims):
        # White moves after the sweep read the game and before it claims the reminder.
        PlayedGame.objects.filter(pk=played.pk).update(ply=21, reminders_sent=0)
        return claim(claims)

    monkeypatch.setattr(sweep_module, "_claim", move_first)
    assert sweep(django_capture_on_commit_callbacks, since + 14 * DAY).reminders == 0
    played.refresh_from_db()
    assert played.reminders_sent == 0


def test_a_closed_group_is_left_alone(world, django_capture_on_commit_callbacks):
    played = world.fresh()
    Group.objects.filter(pk=world.group.pk).update(closed_at=T0)
    assert sweep(django_capture_on_commit_callbacks, T0 + 40 * DAY) == SweepReport()
    assert result_of(played) == ""


@pytest.mark.parametrize("result", ["1-0"])
def test_a_result_entered_by_the_td_meanwhile_only_closes_the_clock(
    world, django_capture_on_commit_callbacks, result
):
    played = world.fresh()
    Game.objects.filter(pk=played.pk).update(result=result)
    assert sweep(django_capture_on_commit_callbacks, T0 + 40 * DAY).lost_on_time == 0
    played.refresh_from_db()
    assert played.finished_at is not None and result_of(played) == result


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.page_bumps_on_commit
def test_two_sweeps_at_once_send_each_reminder_once_and_end_each_game_once(mailoutbox):
    from apps.notifications.models import SentNotification
    from tests.racing import race
    from tests.worlds.play import build_play_world

    world = build_play_world(None)
    games = PlayedGame.objects.filter(stage=world.stage).count()
    assert games == 24  # one group of twelve, four games each: every clock runs from START
    mailoutbox.clear()

    first = race(lambda: sweep_clocks(T0 + 20 * DAY), lambda: sweep_clocks(T0 + 20 * DAY))
    assert all(isinstance(r, SweepReport) for r in first), first
    assert sum(r.reminders for r in first) == games
    assert SentNotification.objects.filter(kind="silence").count() == games
    assert len([m for m in mailoutbox if "14 days without your move" in m.subject]) == games

    second = race(lambda: sweep_clocks(T0 + 40 * DAY), lambda: sweep_clocks(T0 + 40 * DAY))
    assert all(isinstance(r, SweepReport) for r in second), second
    assert sum(r.lost_on_time for r in second) == games
    assert sum(r.lost_by_silence + r.reminders for r in second) == 0
    entered = AuditEvent.objects.filter(action=Action.RESULT_ENTERED, stage_id=world.stage.pk)
    assert entered.count() == games
    assert set(Game.objects.filter(group=world.group).values_list("result", flat=True)) == {"0-1"}
