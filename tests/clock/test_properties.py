"""The clock engine's invariants, checked on generated games (docs/clock.md).

Reflection time is recomputed here independently, calendar day by calendar day.
"""

from dataclasses import replace
from datetime import datetime, time, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from apps.clock import (
    Fischer,
    GameTimes,
    Leave,
    MovesInDays,
    Side,
    TimeLoss,
    charged_days,
    clock_report,
    days_to_exceed,
)

from .strategies import DAY, controls, games, leaves

MICROSECOND = timedelta(microseconds=1)


def paused_days(game):
    return {
        leave.first_day + timedelta(days=n)
        for leave in game.white_leave + game.black_leave
        for n in range(leave.days)
    }


def reflection_by_days(game, begin, end):
    """``end - begin`` less the parts of it on a leave day of either player."""
    paused, days = timedelta(), paused_days(game)
    day = begin.date()
    while day <= end.date():
        if day in days:
            midnight = datetime.combine(day, time(), begin.tzinfo)
            paused += max(timedelta(), min(end, midnight + DAY) - max(begin, midnight))
        day += timedelta(days=1)
    return end - begin - paused


def allowance(control, move_number):
    if isinstance(control, MovesInDays):
        return control.days * ((move_number + control.moves - 1) // control.moves)
    return control.base + (move_number - 1) * control.increment


def prefix(game, moves):
    return GameTimes(game.start, moves, game.white_leave, game.black_leave)


@given(controls, games())
def test_days_used_are_whole_days_of_the_reflection_less_leave(control, case):
    game, now = case
    report = clock_report(control, game, now)
    for move in (*report.moves, report.in_hand):
        end = move.made_at or report.as_of
        assert move.reflection == reflection_by_days(game, move.began, end)
        assert move.days_used == move.reflection // DAY
        assert move.began == (game.start if move.ply == 1 else game.moves[move.ply - 2])


@given(controls, games())
def test_doubling_is_exact_and_totals_add_up(control, case):
    game, now = case
    report = clock_report(control, game, now)
    for move in (*report.moves, report.in_hand):
        beyond = 0 if control.doubling_after is None else move.days_used - control.doubling_after
        assert move.days_charged == move.days_used + max(0, beyond)
    for side in Side:
        clock = report.clock(side)
        own = [m for m in (*report.moves, report.in_hand) if m.side is side]
        assert clock.charged_total == sum(m.days_charged for m in own)
        assert clock.allowance == allowance(control, clock.moves_made + 1)
        assert clock.days_left == max(0, clock.allowance - clock.charged_total)


@given(controls, games())
def test_no_move_in_the_report_went_over_its_allowance(control, case):
    game, now = case
    report = clock_report(control, game, now)
    charged = dict.fromkeys(Side, 0)
    for move in report.moves:
        charged[move.side] += move.days_charged
        assert charged[move.side] <= allowance(control, (move.ply + 1) // 2)
    over = charged[report.in_hand.side] + report.in_hand.days_charged
    assert (over > allowance(control, (report.in_hand.ply + 1) // 2)) == (report.loss is not None)


@given(controls, games())
def test_the_loss_is_the_first_instant_the_allowance_is_exceeded(control, case):
    game, now = case
    report = clock_report(control, game, now)
    if report.loss is None:
        assert report.as_of == now and len(report.moves) == len(game.moves)
        assert report.runs_out_at > now
        at_the_end = clock_report(control, game, report.runs_out_at).loss
        assert at_the_end == TimeLoss(report.in_hand.side, report.in_hand.ply, report.runs_out_at)
        return
    loss = report.loss
    assert report.runs_out_at == loss.at
    before = prefix(game, game.moves[: loss.ply - 1])
    assert clock_report(control, before, loss.at - MICROSECOND).loss is None
    assert clock_report(control, before, loss.at).loss == loss
    assert report.in_hand.reflection == report.in_hand.days_used * DAY
    assert loss.side is Side.of_ply(loss.ply) and report.clock(loss.side).days_left == 0
    assert not any(start < loss.at < end for start, end in game.pauses.intervals)


@given(controls, games(), st.lists(st.floats(0, 1), max_size=8))
def test_days_left_never_increase_but_by_an_increment_or_a_new_period(control, case, points):
    game, now = case
    instants = sorted({*game.moves, now, *(game.start + (now - game.start) * p for p in points)})
    reports = [
        clock_report(control, prefix(game, [m for m in game.moves if m <= t]), t) for t in instants
    ]
    for earlier, later in zip(reports, reports[1:], strict=False):
        if earlier.loss:
            assert later.loss == earlier.loss
        for side in Side:
            a, b = earlier.clock(side), later.clock(side)
            assert b.moves_made >= a.moves_made and b.charged_total >= a.charged_total
            assert b.days_left - a.days_left <= b.allowance - a.allowance
            if b.moves_made == a.moves_made:
                assert b.days_left <= a.days_left


@given(controls, games(), st.data())
def test_adding_leave_never_makes_anyone_lose_earlier(control, case, data):
    game, now = case
    extra = data.draw(leaves(game.start.date(), most=2))
    side = data.draw(st.sampled_from(Side))
    more = GameTimes(
        game.start,
        game.moves,
        game.white_leave + tuple(extra if side is Side.WHITE else ()),
        game.black_leave + tuple(extra if side is Side.BLACK else ()),
    )
    old, new = clock_report(control, game, now), clock_report(control, more, now)
    if old.loss is None:
        assert new.loss is None
    elif new.loss is not None:
        # the player saved by the leave may be followed by a later loss, never an earlier one
        assert new.loss.ply >= old.loss.ply and new.loss.at >= old.loss.at
    for a, b in zip(old.moves, new.moves, strict=False):
        assert b.reflection <= a.reflection and b.days_used <= a.days_used


@given(games(), st.data())
def test_a_leave_over_the_whole_reflection_makes_it_zero(case, data):
    game, now = case
    ply = data.draw(st.integers(1, len(game.moves) + 1))
    began = game.start if ply == 1 else game.moves[ply - 2]
    end = game.moves[ply - 1] if ply <= len(game.moves) else now
    leave = (Leave(began.date(), end.date()),)
    side = data.draw(st.sampled_from(Side))
    covered = GameTimes(
        game.start,
        game.moves,
        game.white_leave + (leave if side is Side.WHITE else ()),
        game.black_leave + (leave if side is Side.BLACK else ()),
    )
    roomy = Fischer(base=10**6, doubling_after=None)
    report = clock_report(roomy, covered, now)
    move = (*report.moves, report.in_hand)[ply - 1]
    assert move.reflection == timedelta() and move.days_used == 0


@given(controls, games(), st.integers(-12, 14), st.randoms(use_true_random=False))
def test_the_report_is_determined_by_the_instants_alone(control, case, hours, rng):
    game, now = case
    zone = timezone(timedelta(hours=hours))
    white, black = list(game.white_leave), list(game.black_leave)
    rng.shuffle(white)
    rng.shuffle(black)
    elsewhere = GameTimes(
        game.start.astimezone(zone), [m.astimezone(zone) for m in game.moves], white, black
    )
    report = clock_report(control, game, now)
    assert clock_report(control, game, now) == report
    assert clock_report(control, elsewhere, now.astimezone(zone)) == report


@given(st.integers(0, 500), st.none() | st.integers(0, 40))
def test_days_to_exceed_is_the_fewest_days_whose_charge_passes_the_days_left(left, doubling):
    used = days_to_exceed(left, doubling)
    assert charged_days(used, doubling) > left >= charged_days(used - 1, doubling)


def test_controls_refuse_impossible_numbers():
    for bad in (
        lambda: MovesInDays(moves=0),
        lambda: MovesInDays(days=-1),
        lambda: Fischer(base=0),
        lambda: Fischer(increment=-1),
        lambda: MovesInDays(doubling_after=-1),
        lambda: replace(Fischer(), base=True),
    ):
        try:
            bad()
        except ValueError:
            continue
        raise AssertionError("accepted")
