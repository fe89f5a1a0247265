"""Leave periods and the check of a leave request (docs/clock.md §5)."""

from datetime import UTC, date, datetime

import pytest

from apps.clock import Leave, LeaveAllowance, LeaveProblem, check_leave

TODAY = date(2027, 3, 1)
USUAL = LeaveAllowance()


def problems(requested, taken=(), allowance=USUAL, today=TODAY):
    return [
        r.problem for r in check_leave(requested, today=today, taken=taken, allowance=allowance)
    ]


def test_a_leave_announced_in_advance_within_the_allowance_may_be_taken():
    assert check_leave(Leave(date(2027, 3, 2), date(2027, 3, 31)), today=TODAY) == ()


def test_a_leave_must_be_announced_before_its_first_day():
    assert problems(Leave(TODAY, date(2027, 3, 5))) == [LeaveProblem.NOT_IN_ADVANCE]
    assert problems(Leave(date(2027, 2, 20), date(2027, 3, 5))) == [LeaveProblem.NOT_IN_ADVANCE]


def test_a_leave_may_not_share_a_day_with_one_taken():
    taken = [Leave(date(2027, 4, 1), date(2027, 4, 10))]
    assert problems(Leave(date(2027, 4, 10), date(2027, 4, 12)), taken) == [LeaveProblem.OVERLAP]
    # the day after the last day is free: leaves may follow one another
    assert problems(Leave(date(2027, 4, 11), date(2027, 4, 12)), taken) == []


def test_45_days_a_year_and_the_46th_is_refused():
    taken = [Leave(date(2027, 1, 10), date(2027, 2, 13))]  # 35 days
    assert problems(Leave(date(2027, 6, 1), date(2027, 6, 10)), taken) == []
    refusals = check_leave(Leave(date(2027, 6, 1), date(2027, 6, 11)), today=TODAY, taken=taken)
    assert [r.problem for r in refusals] == [LeaveProblem.OVER_ALLOWANCE]
    assert "2027" in refusals[0].message and "46" in refusals[0].message


def test_special_leave_adds_to_the_years_allowance():
    requested = Leave(date(2027, 6, 1), date(2027, 7, 25))  # 55 days
    assert problems(requested) == [LeaveProblem.OVER_ALLOWANCE]
    assert problems(requested, allowance=LeaveAllowance(special_days=10)) == []


def test_a_leave_over_new_year_counts_each_day_in_its_own_year():
    taken = [Leave(date(2027, 3, 10), date(2027, 4, 12))]  # 34 days of 2027
    over_new_year = Leave(date(2027, 12, 21), date(2028, 1, 20))  # 11 in 2027, 20 in 2028
    assert over_new_year.days_in_year(2027) == 11 and over_new_year.days_in_year(2028) == 20
    assert problems(over_new_year, taken) == []
    longer = Leave(date(2027, 12, 20), date(2028, 1, 20))
    assert problems(longer, taken) == [LeaveProblem.OVER_ALLOWANCE]


def test_unused_leave_does_not_carry_over():
    requested = Leave(date(2028, 2, 1), date(2028, 3, 31))  # 60 days, none taken in 2027
    assert problems(requested) == [LeaveProblem.OVER_ALLOWANCE]


def test_every_problem_is_listed():
    taken = [Leave(date(2027, 2, 25), date(2027, 3, 3))]
    requested = Leave(date(2027, 3, 1), date(2027, 5, 1))
    assert problems(requested, taken) == [
        LeaveProblem.NOT_IN_ADVANCE,
        LeaveProblem.OVERLAP,
        LeaveProblem.OVER_ALLOWANCE,
    ]


def test_a_leave_is_whole_days_that_end_no_earlier_than_they_start():
    with pytest.raises(ValueError, match="before it starts"):
        Leave(date(2027, 3, 2), date(2027, 3, 1))
    with pytest.raises(ValueError, match="calendar date"):
        Leave(datetime(2027, 3, 1, 12, tzinfo=UTC), date(2027, 3, 2))
    with pytest.raises(ValueError, match="whole number"):
        LeaveAllowance(days_per_year=-1)
