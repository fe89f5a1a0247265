"""Two players registering at the same moment for the last place, on PostgreSQL: each in
its own thread and connection, released together at a barrier. The stage's row lock makes
one of them take the place and the other go to the reserve list."""

import pytest

from apps.players.models import Registration
from apps.players.registrations import register
from tests.racing import race

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.page_bumps_on_commit,
]


def test_two_registrations_for_the_last_place_give_one_place_and_one_reserve(
    open_stage, make_player, details
):
    for n in (1, 2):  # two of the three places taken
        register(open_stage, actor=make_player(f"early{n}"), **details(n))
    late = [make_player("late1"), make_player("late2")]
    outcomes = race(
        lambda: register(open_stage, actor=late[0], **details(3)),
        lambda: register(open_stage, actor=late[1], **details(4)),
    )
    assert all(isinstance(o, Registration) for o in outcomes), outcomes
    rows = Registration.objects.filter(user__in=late).order_by("position")
    assert [r.status for r in rows] == [Registration.Status.PENDING, Registration.Status.RESERVE]
    assert [r.position for r in rows] == [3, 4]
