"""Regression cases: rounds where the engine once paired otherwise than the official bbpPairings.

Each ``data/bbp_cases/NAME.trf`` is the state before one round (made by ``bbp_check.cut`` from
a tournament the official bbpPairings v6.0.0 generated, see ``data/SOURCES.md``) and
``NAME.pairs`` what that build printed for it (``--dutch NAME.trf -p``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.silli.swiss import acceleration
from apps.silli.swiss.acceleration import Acceleration
from apps.silli.swiss.dutch import PairingError, pair_round, player_states
from apps.silli.swiss.trf import decode_trf, parse_trf

from .reference import check, parse_pairs

CASES = Path(__file__).parent / "data" / "bbp_cases"


def _case(name: str):
    tournament = parse_trf(decode_trf((CASES / f"{name}.trf").read_bytes()))
    return tournament, parse_pairs((CASES / f"{name}.pairs").read_text())


@pytest.mark.parametrize(
    "name,round_number,player",
    [("forfeit_loss_no_float_p12_r5", 5, 5), ("forfeit_loss_no_float_p20_r5", 5, 4)],
)
def test_a_forfeit_lost_is_no_float(name, round_number, player):
    """A game not played and lost (a forfeit) is no float, whatever the scores were (bbpPairings
    counts a float only for a game played or points without playing); the engine once counted
    the pairing's score difference and paired these rounds otherwise."""
    tournament, (want, bye) = _case(name)
    state = next(s for s in player_states(tournament, round_number)[1] if s.number == player)
    assert state.floats[0] is None  # lost the previous round by forfeit, paired lower/higher
    got = pair_round(tournament, round_number)
    assert (set(got.pairs), got.bye) == (want, bye)


def test_the_number_of_rounds_of_trf_2026_is_read():
    """bbpPairings writes TRF-2026's ``142`` (total rounds), not ``XXR``: round 8 of 9 is not the
    last (no topscorers), and when its generator stops at round 9 for want of a legal pairing,
    so does the engine."""
    path = CASES / "rounds_142_p10_stopped_before_r9.trf"
    tournament = parse_trf(decode_trf(path.read_bytes()))
    assert tournament.total_rounds == 9
    assert tournament.rounds_with_pairings == 8
    assert not any(s.topscorer for s in player_states(tournament, 8)[1])
    verdict = check(str(path))  # every round, 1 to 8, as the build paired it
    assert verdict.first_bad is None, verdict.detail
    with pytest.raises(PairingError):
        pair_round(tournament, 9)


@pytest.mark.parametrize(
    "name,round_number", [("baku_group_a_p9_r1", 1), ("baku_group_a_p21_r2", 2)]
)
def test_baku_group_a_is_the_first_half_rounded_up(name, round_number, monkeypatch):
    """The official build's group A is the first ⌈N/2⌉ players (9 → 5, 21 → 11), not FIDE's
    text's 2·⌈N/4⌉ (9 → 6, 21 → 12), which pairs these rounds otherwise."""
    tournament, (want, bye) = _case(name)
    got = pair_round(tournament, round_number, Acceleration.BAKU)
    assert (set(got.pairs), got.bye) == (want, bye)
    monkeypatch.setattr(
        acceleration, "group_a_size", lambda players, method: 2 * ((players + 3) // 4)
    )
    other = pair_round(tournament, round_number, Acceleration.BAKU)
    assert (set(other.pairs), other.bye) != (want, bye)


@pytest.mark.parametrize(
    "name,round_number,bye,unplayed",
    [
        # the PAB's score is 1.5 (players 4 and 7), the last bracket is of 1 point (players who
        # may not have it): C9 decides there between the two MDPs, 7 has no unplayed game
        ("c9_below_the_bye_score_p9_r4", 4, 7, {4: 1, 7: 0}),
        # the PAB's score is 3.5 (players 6 and 8), brackets of players who may not have it
        # follow: the PAB assignee is the 3.5 bracket's single downfloater, C9 decides there
        ("c9_bracket_not_last_p15_r8", 8, 6, {6: 0, 8: 1}),
    ],
)
def test_c9_decides_where_the_bye_assignee_is_the_single_downfloater(
    name, round_number, bye, unplayed
):
    """C9 (the fewest unplayed games for the PAB assignee) applies in every bracket not above
    the PAB's score whose only downfloater is the PAB assignee (bbpPairings v6.0.0), not only
    in the last bracket of the PAB's own score."""
    tournament, (want, want_bye) = _case(name)
    states = {s.number: s for s in player_states(tournament, round_number)[1]}
    assert {n: states[n].unplayed for n in unplayed} == unplayed
    got = pair_round(tournament, round_number)
    assert want_bye == bye
    assert (set(got.pairs), got.bye) == (want, want_bye)
