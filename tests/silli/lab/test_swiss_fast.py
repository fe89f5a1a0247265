"""The fast approximation of the Dutch Swiss system."""

import random

import pytest

from apps.silli.lab.fields import parse_field
from apps.silli.lab.results import play_game
from apps.silli.lab.swiss import (
    BLACK,
    WHITE,
    SwissLabError,
    SwissState,
    allocate,
    pair_fast,
    preference,
)
from apps.silli.swiss.acceleration import Acceleration


def play_out(ratings, rounds, acceleration, seed):
    state = SwissState(ratings, rounds, acceleration)
    chance = random.Random(seed)
    pairings = []
    for r in range(1, rounds + 1):
        pairing = pair_fast(state, r)
        pairings.append(pairing)
        for white, black in pairing.pairs:
            state.record(white, black, play_game(ratings[white], ratings[black], chance.random()))
        if pairing.bye is not None:
            state.record_bye(pairing.bye)
    return state, pairings


CASES = [
    ("linear:108:1000:2000", 9, Acceleration.NONE),
    ("linear:107:1000:2000", 9, Acceleration.BAKU),
    ("model1:432", 9, Acceleration.BAKU),
    ("model1:433", 9, Acceleration.NONE),
    ("linear:11:1500:2500", 9, Acceleration.NONE),
    ("linear:12:1500:2500", 7, Acceleration.GENERAL),
]


@pytest.mark.parametrize(("text", "rounds", "acceleration"), CASES)
@pytest.mark.parametrize("seed", range(3))
def test_no_rematch_and_at_most_one_bye(text, rounds, acceleration, seed):
    ratings = parse_field(text).ratings
    n = len(ratings)
    _, pairings = play_out(ratings, rounds, acceleration, seed)
    met = set()
    byes = []
    for pairing in pairings:
        seen = [p for pair in pairing.pairs for p in pair]
        if pairing.bye is not None:
            seen.append(pairing.bye)
            byes.append(pairing.bye)
        assert sorted(seen) == list(range(n)), "everyone plays or has the bye, once"
        for white, black in pairing.pairs:
            pair = frozenset((white, black))
            assert pair not in met, f"rematch {sorted(pair)}"
            met.add(pair)
    assert len(byes) == len(set(byes)) == (rounds if n % 2 else 0)


def test_round_one_is_top_half_against_bottom_half():
    ratings = parse_field("linear:20:1000:2000").ratings
    pairing = pair_fast(SwissState(ratings, 5), 1)
    assert sorted(tuple(sorted(p)) for p in pairing.pairs) == [(i, i + 10) for i in range(10)]
    # colours alternate from board 1, the higher ranked player White on odd TPNs
    assert pairing.pairs[0] == (0, 10) and pairing.pairs[1] == (11, 1)


def test_baku_round_one_pairs_within_halves():
    ratings = parse_field("linear:16:1000:2000").ratings
    pairing = pair_fast(SwissState(ratings, 9, Acceleration.BAKU), 1)
    assert sorted(tuple(sorted(p)) for p in pairing.pairs) == [
        (0, 4), (1, 5), (2, 6), (3, 7), (8, 12), (9, 13), (10, 14), (11, 15),
    ]  # fmt: skip


def test_colours_by_preference():
    assert preference([]) == (0, 0)
    assert preference([WHITE])[0] == BLACK
    assert preference([WHITE, WHITE]) == (BLACK, 3)
    state = SwissState([2000, 1900], 5)
    state.colours = [[WHITE], [BLACK]]
    assert allocate(state, 0, 1) == (1, 0)  # both preferences granted
    state.colours = [[WHITE], [WHITE, BLACK, WHITE]]
    assert allocate(state, 0, 1) == (1, 0)  # both want Black: the higher ranked gets it (E.4)
    state.colours = [[WHITE], [WHITE, WHITE]]
    assert allocate(state, 0, 1) == (0, 1)  # the absolute preference wins (E.2)


def test_a_round_that_cannot_be_paired_says_so():
    state = SwissState([2000, 1900, 1800, 1700], 5)
    for a, b in ((0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)):
        state.record(a, b, 1)
    with pytest.raises(SwissLabError, match="round 4"):
        pair_fast(state, 4)
