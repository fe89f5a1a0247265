"""Seating reaches the real limits, not a greedy's, and fails plainly when it must."""

import pytest

from apps.silli.circle import neighbours
from apps.silli.draw import DrawError, DrawSettings, draw_group, draw_stage
from apps.silli.entrants import Entrant
from apps.silli.rng import ChanceStream
from apps.silli.seating import seat_circle


def group_with(n, big, nation="ITA", others=25, tag=""):
    entrants = [Entrant(f"{nation}{i:03d}{tag}", "x", nation, 2000) for i in range(big)]
    entrants += [Entrant(f"O{i:03d}{tag}", "y", f"N{i % others:02d}", 2000) for i in range(n - big)]
    return entrants


def same_nation_games(seated, formula):
    nbrs = neighbours(len(seated), formula)
    return (
        sum(1 for s, row in enumerate(nbrs) for t in row if seated[s].nation == seated[t].nation)
        // 2
    )


@pytest.mark.parametrize(
    ("n", "big", "formula"),
    [
        (104, 28, (1, 4, 10, 17, 32)),  # α = 28 exactly (docs/silli.md §4)
        (103, 31, (1, 4, 10, 17, 29)),  # α = 31 exactly
        (100, 30, (1, 4, 10, 17)),  # α = 30 exactly
    ],
)
def test_seating_reaches_the_independence_number(n, big, formula):
    seated = seat_circle(
        group_with(n, big), formula, ChanceStream("s", "t"), separate_nations=True, met_before={}
    )
    assert seated is not None and same_nation_games(seated, formula) == 0


def test_a_quarter_of_every_104_seat_group_with_ten_games():
    entrants = []
    for g in range(4):
        entrants += group_with(104, 26, tag=f"-{g}")
    draw = draw_stage(entrants, DrawSettings(games_per_player=10, min_group_size=100), "quarter")
    assert [g.size for g in draw.groups] == [104] * 4
    for g in draw.groups:
        assert not g.conflicts and g.principles_hold
        assert sum(1 for s in g.seats if s.nation == "ITA") == 26


def test_45_percent_of_every_100_seat_group_with_eight_games_needs_all_odd():
    entrants = []
    for g in range(3):
        entrants += group_with(100, 45, tag=f"-{g}")
    draw = draw_stage(entrants, DrawSettings(games_per_player=8, min_group_size=100), "odd")
    for g in draw.groups:
        assert g.formula == (5, 13, 17, 19) and g.rule == "all-odd searched"
        assert not g.conflicts


def test_impossible_nation_names_group_nation_count_and_bound():
    entrants = group_with(104, 40)
    with pytest.raises(DrawError) as err:
        draw_group(1, entrants, DrawSettings(games_per_player=10), "x", {})
    message = str(err.value)
    assert "Group 1 (104 seats, 10 games per player)" in message
    assert "nation ITA has 40 entrants" in message
    assert err.value.nation == "ITA" and err.value.count == 40 and err.value.bound >= 37
    assert f"bound of {err.value.bound}" in message


def test_more_than_half_is_impossible_for_any_formula():
    with pytest.raises(DrawError, match=r"nation ITA has 53 entrants, more than the 52"):
        draw_group(3, group_with(104, 53), DrawSettings(games_per_player=8), "x", {})


def test_allowed_same_nation_games_are_listed_in_the_certificate():
    group = draw_group(
        1, group_with(104, 40), DrawSettings(games_per_player=10, allowed_nation_games=30), "x", {}
    )
    assert 0 < len(group.conflicts) <= 30
    assert all(c.reason == "same nation" for c in group.conflicts)


def test_met_before_and_same_person_pairs_never_meet():
    entrants = group_with(103, 12)
    codes = [e.code for e in entrants]
    met = {}
    for i in range(0, 100, 2):
        met.setdefault(codes[i], set()).add(codes[i + 1])
        met.setdefault(codes[i + 1], set()).add(codes[i])
    met = {k: frozenset(v) for k, v in met.items()}
    group = draw_group(1, entrants, DrawSettings(games_per_player=10), "x", met)
    assert not group.conflicts
    for game in group.games:
        assert game.black not in met.get(game.white, ())
