"""Berger tables (FIDE C.05 Annex 1) and round-robin groups."""

from collections import Counter
from itertools import combinations

import pytest

from apps.silli.draw import ROUND_ROBIN, DrawSettings, draw_stage
from apps.silli.entrants import Entrant
from apps.silli.roundrobin import berger_rounds


def test_fide_berger_table_for_six():
    assert berger_rounds(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@pytest.mark.parametrize("n", range(2, 17))
def test_every_pair_meets_once_and_colours_balance(n):
    rounds = berger_rounds(n)
    games = [g for r in rounds for g in r]
    assert sorted(tuple(sorted(g)) for g in games) == list(combinations(range(1, n + 1), 2))
    for r in rounds:
        seats = [s for g in r for s in g]
        assert len(seats) == len(set(seats))
    whites = Counter(w for w, _ in games)
    for seat in range(1, n + 1):
        assert abs(whites[seat] - (n - 1 - whites[seat])) <= 1 + (n % 2)


def test_double_round_robin_reverses_colours():
    rounds = berger_rounds(5, double=True)
    assert len(rounds) == 10
    first = [g for r in rounds[:5] for g in r]
    second = [g for r in rounds[5:] for g in r]
    assert second == [(b, w) for w, b in first]


def test_an_eleven_player_final_as_a_round_robin():
    finalists = [Entrant(f"F{i:02d}", "x", "ITA" if i < 3 else f"N{i:02d}") for i in range(11)]
    draw = draw_stage(finalists, DrawSettings(format=ROUND_ROBIN, min_group_size=11), "final")
    (group,) = draw.groups
    assert group.size == 11 and len(group.games) == 55
    assert {g.round for g in group.games} == set(range(1, 12))
    # all pairs meet, so the three Italians' games are listed, not hidden
    assert len([c for c in group.conflicts if c.reason == "same nation"]) == 3
