"""Every draw respects sizes, colours, principles, forbidden pairs, persons and nation spread.

The checks here are written out independently of the engine's own verifier.
"""

from collections import Counter

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from apps.silli.draw import DrawSettings, draw_stage
from apps.silli.formula import certificate

from .strategies import entrant_lists


def assert_draw_is_sound(entrants, draw, met_before=()):
    by_code = {e.code: e for e in entrants}
    s = draw.settings
    groups = draw.groups
    # sizes: floor(N / min) groups, differing by at most one, larger first
    sizes = [g.size for g in groups]
    assert len(groups) == max(1, len(entrants) // s.min_group_size)
    assert sizes == sorted(sizes, reverse=True) and max(sizes) - min(sizes) <= 1
    seated = [seat.entrant for g in groups for seat in g.seats]
    assert sorted(seated) == sorted(by_code)
    met = {frozenset(p) for p in met_before}
    for g in groups:
        n = g.size
        k = s.games_per_player // 2
        codes = [seat.entrant for seat in g.seats]
        # principles by brute force
        assert certificate(n, g.formula).valid
        assert g.principles_hold
        # colours and distinct opponents
        white = Counter(x.white for x in g.games)
        black = Counter(x.black for x in g.games)
        assert all(white[c] == k and black[c] == k for c in codes)
        opponents = {c: set() for c in codes}
        for x in g.games:
            opponents[x.white].add(x.black)
            opponents[x.black].add(x.white)
        assert all(len(o) == 2 * k for o in opponents.values())
        # forbidden pairs never meet
        for x in g.games:
            a, b = by_code[x.white], by_code[x.black]
            assert a.person != b.person
            if s.separate_nations:
                assert a.nation != b.nation, (g.number, x)
            if s.avoid_rematches:
                assert frozenset((a.code, b.code)) not in met
    # persons in different groups; nations spread within one
    where = Counter(
        (by_code[c].person, g.number) for g in groups for c in (t.entrant for t in g.seats)
    )
    assert max(where.values()) == 1
    for nation in {e.nation for e in entrants}:
        counts = [sum(1 for t in g.seats if t.nation == nation) for g in groups]
        assert max(counts) - min(counts) <= 1, nation


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entrants=entrant_lists(),
    games=st.sampled_from([8, 10]),
    seed=st.text(min_size=1, max_size=12),
    data=st.data(),
)
def test_every_draw_respects_all_constraints(entrants, games, seed, data):
    smallest = 48 if games == 8 else 75
    min_size = data.draw(st.integers(smallest, max(smallest, len(entrants))))
    assume(len(entrants) >= smallest)
    groups = max(1, len(entrants) // min_size)
    assume(max(Counter(e.person for e in entrants).values()) <= groups)
    codes = [e.code for e in entrants]
    met = data.draw(
        st.lists(st.tuples(st.sampled_from(codes), st.sampled_from(codes)), max_size=60)
    )
    met = [(a, b) for a, b in met if a != b]
    draw = draw_stage(
        entrants, DrawSettings(games_per_player=games, min_group_size=min_size), seed, met
    )
    assert_draw_is_sound(entrants, draw, met)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entrants=entrant_lists(min_size=100, max_size=250), seed=st.text(min_size=1, max_size=8))
def test_draw_is_a_pure_function_of_its_inputs(entrants, seed):
    s = DrawSettings(games_per_player=10, min_group_size=75)
    assume(max(Counter(e.person for e in entrants).values()) <= len(entrants) // 75)
    first = draw_stage(entrants, s, seed)
    again = draw_stage(list(reversed(entrants)), s, seed)
    assert first.to_json() == again.to_json()
    other = draw_stage(entrants, s, seed + "!")
    assert other.digest != first.digest
