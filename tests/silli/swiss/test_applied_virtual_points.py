"""The virtual points a Swiss round was paired with stand for that round when later rounds are
paired (issue 25, item 4): after a late entrant the Baku group A of the current field differs
from the one applied then, and the floats of earlier rounds are read from what was applied."""

from apps.silli import swiss_system
from apps.silli.swiss.acceleration import Acceleration, virtual_points
from apps.silli.swiss.trf import Colour
from apps.silli.swiss_system import SeatRound, pair_next, round_virtual_points


def test_round_virtual_points_are_by_seat_for_the_pairing_order():
    # 6 seats, seat 6 is pairing number 1 (a strong late entrant): Baku group A is the first
    # ⌈6/2⌉ = 3 pairing numbers (as the official bbpPairings applies it), i.e. seats 6, 1, 2
    applied = round_virtual_points([6, 1, 2, 3, 4, 5], 5, "baku", 1)
    assert applied == {6: 2, 1: 2, 2: 2}
    assert round_virtual_points([1, 2, 3, 4, 5, 6], 5, "none", 1) == {}


def test_earlier_rounds_use_the_points_applied_then(monkeypatch):
    seen = {}

    def capture(state, round_number, method):
        seen["table"], seen["method"] = state.virtual_points, method
        raise RuntimeError("captured")

    monkeypatch.setattr(swiss_system, "pair_round", capture)
    # round 1 was paired with 5 seats; seat 6 joined later and is pairing number 1 now
    rounds = {
        1: [SeatRound(2, True, "1")],
        2: [SeatRound(1, False, "0")],
        3: [SeatRound(4, True, "=")],
        4: [SeatRound(3, False, "=")],
        5: [SeatRound(None, None, "U")],
        6: [SeatRound(None, None, "Z")],
    }
    applied = {1: {1: 2, 2: 2, 3: 2, 4: 2}}
    order = [6, 1, 2, 3, 4, 5]
    try:
        pair_next(6, rounds, 5, "baku", Colour.WHITE, order=order, applied=applied)
    except RuntimeError:
        pass
    tpn = {seat: n for n, seat in enumerate(order, 1)}
    table = seen["table"]
    assert seen["method"] is Acceleration.NONE  # the table says it all
    # round 1: as applied (seats 1-4), not the current field's group A
    assert {n for n, t in table.items() if t.get(1)} == {tpn[s] for s in (1, 2, 3, 4)}
    # round 2 on: the current field's (pairing numbers 1-4)
    now = virtual_points(list(range(1, 7)), 5, Acceleration.BAKU)
    for number in (2, 3, 4, 5):
        assert {n: t.get(number, 0) for n, t in table.items() if t.get(number)} == {
            n: t[number] for n, t in now.items() if t.get(number)
        }
