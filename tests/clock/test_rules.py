"""The rules' worked examples (docs/clock.md), one test each."""

from datetime import UTC, date, datetime, timedelta

import pytest

from apps.clock import (
    Fischer,
    GameTimes,
    Leave,
    MovesInDays,
    Side,
    charged_days,
    clock_report,
    days_to_exceed,
)

START = datetime(2027, 3, 1, 10, tzinfo=UTC)
NO_DOUBLING = MovesInDays(doubling_after=None)


def at(days: float = 0, hours: float = 0) -> datetime:
    return START + timedelta(days=days, hours=hours)


def instant_moves(count: int) -> list[datetime]:
    """``count`` plies all made at the start (a game played at once, no days used)."""
    return [START] * count


@pytest.mark.parametrize(
    ("hours", "days_used"),
    [(0, 0), (23, 0), (23.999, 0), (24, 1), (30, 1), (47.99, 1), (48, 2), (24 * 23 + 5, 23)],
)
def test_days_used_are_the_complete_24_hour_periods(hours, days_used):
    game = GameTimes(START, [at(hours=hours)])
    assert clock_report(MovesInDays(), game, at(hours=hours)).moves[0].days_used == days_used


def test_a_move_at_exactly_24_hours_uses_one_day_and_one_a_microsecond_earlier_none():
    day = timedelta(days=1)
    early = GameTimes(START, [START + day - timedelta(microseconds=1)])
    exact = GameTimes(START, [START + day])
    assert clock_report(MovesInDays(), early, START + day).moves[0].days_used == 0
    assert clock_report(MovesInDays(), exact, START + day).moves[0].days_used == 1


@pytest.mark.parametrize(
    ("used", "doubling_after", "charged"),
    [(5, 20, 5), (20, 20, 20), (21, 20, 22), (23, 20, 26), (35, 20, 50), (36, 20, 52)]
    + [(23, None, 23), (3, 0, 6)],
)
def test_doubling_charges_the_days_beyond_the_point_twice(used, doubling_after, charged):
    assert charged_days(used, doubling_after) == charged


def test_the_doubling_point_is_per_move():
    # 15 days on each of two moves: 30 charged, nothing doubled
    game = GameTimes(START, [at(15), at(15), at(30)])
    report = clock_report(MovesInDays(), game, at(30))
    assert report.white.charged_total == 30 and report.white.days_left == 20


def test_a_23_day_move_is_charged_26():
    game = GameTimes(START, [at(23, 5)])
    report = clock_report(MovesInDays(), game, at(23, 5))
    move = report.moves[0]
    assert (move.side, move.days_used, move.days_charged) == (Side.WHITE, 23, 26)
    assert report.white.days_left == 50 - 26


def white_thinks(*days: float) -> list[datetime]:
    """Plies where White thinks the given days on each move and Black answers at once."""
    moves, moment = [], START
    for spent in days:
        moment += timedelta(days=spent)
        moves += [moment, moment]
    return moves


def test_unused_days_carry_forward_to_the_next_ten_moves():
    # White uses 3 days on each of the first 10 moves: 30 of 50, so 70 left for moves 11-20
    report = clock_report(MovesInDays(), GameTimes(START, white_thinks(*[3] * 10)), at(30))
    assert report.white.moves_made == 10 and report.white.charged_total == 30
    assert (report.white.allowance, report.white.days_left) == (100, 70)


def test_ten_moves_in_fifty_days_lost_when_the_eleventh_day_of_the_last_ten_is_complete():
    # 40 days charged in White's first nine moves: 10 left for move 10 (ply 19)
    moves = white_thinks(*[4] * 8, 8)
    game = GameTimes(START, moves)
    assert clock_report(NO_DOUBLING, game, at(40)).white.days_left == 10
    in_time = clock_report(NO_DOUBLING, GameTimes(START, white_thinks(*[4] * 8, 8, 10.99)), at(51))
    assert in_time.loss is None and in_time.white.charged_total == 50
    assert (in_time.white.allowance, in_time.white.days_left) == (100, 50)
    late = clock_report(NO_DOUBLING, game, at(60))
    assert (late.loss.side, late.loss.ply, late.loss.at) == (Side.WHITE, 19, at(51))
    assert late.in_hand.days_used == 11 and late.white.days_left == 0


def test_reaching_the_allowance_exactly_is_in_time():
    # 50 days on White's first move with no doubling: exactly the allowance
    game = GameTimes(START, [at(50, 23)])
    report = clock_report(NO_DOUBLING, game, at(50, 23))
    assert report.loss is None and report.white.charged_total == 50


def test_with_doubling_the_first_move_is_lost_at_36_days():
    # 35 days used are charged 50 (in time); the 36th day makes 52
    assert clock_report(MovesInDays(), GameTimes(START, [at(35, 23)]), at(35, 23)).loss is None
    assert clock_report(MovesInDays(), GameTimes(START), START).runs_out_at == at(36)
    report = clock_report(MovesInDays(), GameTimes(START), at(60))
    assert report.loss.at == at(36) and report.in_hand.days_charged == 52
    assert report.as_of == at(36) and report.white.charged_total == 52
    assert days_to_exceed(50, 20) == 36


def test_a_move_made_at_the_loss_instant_is_too_late():
    report = clock_report(MovesInDays(), GameTimes(START, [at(36), at(37)]), at(37))
    assert report.loss.ply == 1 and report.moves == ()


def test_fischer_takes_the_charged_days_and_adds_the_increment():
    # 30 + 3: a 5-day first move leaves 30 - 5 + 3 = 28
    game = GameTimes(START, [at(5, 1), at(5, 2)])
    report = clock_report(Fischer(), game, at(5, 2))
    assert report.white.days_left == 28 and report.black.days_left == 33


def test_fischer_may_reach_zero_but_not_go_below():
    # the clock at 28: 24 days are charged 28 (to zero, then +3); 25 days are charged 30
    opening = [at(5, 1), at(5, 2)]
    zero = GameTimes(START, [*opening, at(29, 20)])
    assert clock_report(Fischer(), zero, at(29, 20)).white.days_left == 3
    lost = clock_report(Fischer(), GameTimes(START, opening), at(40))
    assert (lost.loss.side, lost.loss.ply, lost.loss.at) == (Side.WHITE, 3, at(30, 2))


def test_black_on_leave_stops_whites_clock():
    # White receives the move on 8 March 12:00 and moves on 14 March 12:00; Black is on leave
    # 10-12 March: six days less three
    received, moved = datetime(2027, 3, 8, 12, tzinfo=UTC), datetime(2027, 3, 14, 12, tzinfo=UTC)
    leave = [Leave(date(2027, 3, 10), date(2027, 3, 12))]
    game = GameTimes(START, [START, received, moved], black_leave=leave)
    move = clock_report(MovesInDays(), game, moved).moves[2]
    assert move.reflection == timedelta(days=3) and move.days_used == 3


def test_a_leave_is_whole_utc_days_with_its_last_day_included():
    leave = Leave(date(2027, 3, 10), date(2027, 3, 10))
    assert leave.days == 1
    assert (leave.starts, leave.ends) == (
        datetime(2027, 3, 10, tzinfo=UTC),
        datetime(2027, 3, 11, tzinfo=UTC),
    )
    # received at 18:00 the day before, moved at 06:00 the day after: 6 h + 6 h run
    begin, end = datetime(2027, 3, 9, 18, tzinfo=UTC), datetime(2027, 3, 11, 6, tzinfo=UTC)
    game = GameTimes(begin, [end], white_leave=[leave])
    assert clock_report(MovesInDays(), game, end).moves[0].reflection == timedelta(hours=12)


def test_leave_delays_the_loss_on_time_by_its_days():
    leave = [Leave(date(2027, 3, 20), date(2027, 3, 29))]
    game = GameTimes(START, white_leave=leave)
    assert clock_report(MovesInDays(), game, START).runs_out_at == at(46)
    assert clock_report(MovesInDays(), game, at(60)).loss.at == at(46)


def test_the_clock_stops_at_the_loss_and_later_moves_are_not_part_of_the_game():
    game = GameTimes(START, [at(1), at(2), at(50), at(51)])
    report = clock_report(MovesInDays(), game, at(51))
    assert (report.loss.side, report.loss.ply) == (Side.WHITE, 3)
    assert [move.ply for move in report.moves] == [1, 2]
    # 49 days left when ply 3 began: 35 days used are charged 50, one more than that
    assert report.as_of == report.loss.at == at(2 + 35)


def test_before_any_move_both_players_have_the_whole_allowance():
    report = clock_report(MovesInDays(), GameTimes(START), START)
    assert (report.white.days_left, report.black.days_left) == (50, 50)
    report = clock_report(Fischer(), GameTimes(START), START)
    assert (report.white.days_left, report.black.days_left) == (30, 30)


def test_days_a_td_added_raise_every_allowance_of_that_player():
    start = datetime(2027, 1, 1, tzinfo=UTC)
    game = GameTimes(start, (), white_extra_days=5)
    report = clock_report(MovesInDays(10, 50, None), game, start)
    assert (report.white.days_left, report.black.days_left) == (55, 50)
    assert report.runs_out_at == datetime(2027, 2, 26, tzinfo=UTC)  # 56 days
    with pytest.raises(ValueError, match="black_extra_days"):
        GameTimes(start, (), black_extra_days=-1)
