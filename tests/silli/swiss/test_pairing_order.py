"""Pairing numbers apart from seats (late entrants): ``pairing_order`` and ``pair_next`` with
an ``order`` — the engine pairs TPN 1..n, the adapter relabels seats ↔ TPN around it."""

from __future__ import annotations

import random

import pytest

from apps.silli.entrants import Entrant
from apps.silli.swiss.dutch import PairingError
from apps.silli.swiss.trf import Colour
from apps.silli.swiss_system import RankedPlayer, SeatRound, initial_order, pair_next, pairing_order
from apps.silli.synth import make_entrants

OUTCOMES = ("1", "0", "=")


def play_rounds(size, played, total, *, order=None, absent=(), seed=1, acceleration="none"):
    """``played`` rounds paired by ``pair_next`` (with ``order``), results from a seeded lot;
    seat → its cells. A seat in ``absent`` sits out every round (``Z``)."""
    lot = random.Random(seed)
    cells: dict[int, list[SeatRound]] = {s: [] for s in range(1, size + 1)}
    for _ in range(played):
        pairing = pair_next(size, cells, total, acceleration, Colour.WHITE, absent, order)
        done = set()
        for white, black in pairing.pairs:
            result = lot.choice(OUTCOMES)
            other = {"1": "0", "0": "1", "=": "="}[result]
            cells[white].append(SeatRound(black, True, result))
            cells[black].append(SeatRound(white, False, other))
            done |= {white, black}
        if pairing.bye is not None:
            cells[pairing.bye].append(SeatRound(None, None, "U"))
            done.add(pairing.bye)
        for seat in cells:
            if seat not in done:
                cells[seat].append(SeatRound(None, None, "Z"))
    return cells


def test_without_late_entrants_the_pairing_order_is_the_seats():
    entrants = make_entrants(40, "order", multi_entry_share=0)
    seated = {i: e for i, e in enumerate(initial_order(entrants), start=1)}
    assert pairing_order(seated) == list(range(1, 41))


def test_a_late_entrant_takes_the_place_their_rating_gives():
    seats = {
        1: RankedPlayer("A", "Alpha", 2400),
        2: RankedPlayer("B", "Bravo", 2200),
        3: RankedPlayer("C", "Charlie", 2000),
        4: Entrant("D", "Delta", "ITA", 2300),  # late, seated last
        5: RankedPlayer("E", "Echo"),  # late, no rating: last
        6: RankedPlayer("F", "Bravo", 2200),  # same rating and name: by code
    }
    assert pairing_order(seats) == [1, 4, 2, 6, 3, 5]


@pytest.mark.parametrize("size, played", [(10, 2), (13, 3), (16, 4)])
def test_the_identity_order_changes_nothing(size, played):
    cells = play_rounds(size, played, played + 2)
    plain = pair_next(size, cells, played + 2, "none", Colour.WHITE)
    same = pair_next(size, cells, played + 2, "none", Colour.WHITE, (), list(range(1, size + 1)))
    assert plain == same


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("acceleration", ["none", "baku"])
def test_pairing_by_seats_in_an_order_is_pairing_by_pairing_numbers_relabelled(seed, acceleration):
    """A tournament in pairing numbers, its seats a shuffle of them: pair_next with the order
    pairs exactly the engine's pairing of the pairing numbers, in seats."""
    size, played, total = 15, 3, 6
    lot = random.Random(seed)
    by_tpn = play_rounds(size, played, total, seed=seed, acceleration=acceleration)
    order = list(range(1, size + 1))
    lot.shuffle(order)  # order[t - 1]: the seat of pairing number t
    seat = dict(enumerate(order, start=1))
    by_seat = {
        seat[t]: [
            SeatRound(None if c.opponent is None else seat[c.opponent], c.white, c.result)
            for c in cells
        ]
        for t, cells in by_tpn.items()
    }
    absent = {order[4]}
    expected = pair_next(size, by_tpn, total, acceleration, Colour.BLACK, {5})
    got = pair_next(size, by_seat, total, acceleration, Colour.BLACK, absent, order)
    assert got.round_number == expected.round_number == played + 1
    assert got.pairs == tuple((seat[w], seat[b]) for w, b in expected.pairs)
    assert got.bye == (None if expected.bye is None else seat[expected.bye])
    assert got.absent == (order[4],)


def test_a_late_entrant_is_paired_from_the_round_after_they_joined_without_a_rematch():
    # 11 players play two rounds; a 12th, rated above everyone, joins at seat 12.
    size, total = 12, 7
    cells = play_rounds(11, 2, total, seed=3)
    cells[12] = [SeatRound(None, None, "Z"), SeatRound(None, None, "Z")]
    order = [12, *range(1, 12)]
    pairing = pair_next(size, cells, total, "none", Colour.WHITE, (), order)
    paired = [s for pair in pairing.pairs for s in pair]
    assert sorted(paired) == list(range(1, 13)) and pairing.bye is None
    met = {frozenset((s, c.opponent)) for s, cs in cells.items() for c in cs if c.opponent}
    assert not met & {frozenset(p) for p in pairing.pairs}
    # played on to the end with the order: never a rematch, one game a round each
    for _ in range(3, total + 1):
        pairing = pair_next(size, cells, total, "none", Colour.WHITE, (), order)
        for white, black in pairing.pairs:
            assert frozenset((white, black)) not in met
            met.add(frozenset((white, black)))
            cells[white].append(SeatRound(black, True, "="))
            cells[black].append(SeatRound(white, False, "="))
        assert pairing.bye is None
    assert len(cells[12]) == total


def test_an_order_that_is_not_the_seats_is_refused():
    cells = play_rounds(6, 1, 4)
    with pytest.raises(PairingError, match="each of the seats 1..6 once"):
        pair_next(6, cells, 4, "none", Colour.WHITE, (), [1, 2, 3, 4, 5, 5])
