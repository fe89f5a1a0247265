"""The weighted matching's shortcuts (apps.silli.swiss.matching): the two-step solve of a long
tie-break field (``low_bits``), the tight edges it keeps (``max_weight_matching_tight``), and
the several augmentations a stage may take; each checked against exhaustive search or against
the plain one-step solve."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.silli.swiss.matching import _blossom, max_weight_matching, max_weight_matching_tight


def _all_matchings(n, weights):
    """Every matching of the graph, as a frozenset of edges (i < j)."""
    found = []

    def walk(free, chosen):
        if not free:
            found.append(frozenset(chosen))
            return
        v, rest = free[0], free[1:]
        walk(rest, chosen)
        for k, u in enumerate(rest):
            if (min(v, u), max(v, u)) in weights:
                walk(rest[:k] + rest[k + 1 :], [*chosen, (min(v, u), max(v, u))])

    walk(list(range(n)), [])
    return found


def _total(mate, weights):
    for v, m in enumerate(mate):
        assert m == -1 or (mate[m] == v and (min(v, m), max(v, m)) in weights)
    return sum(weights[(v, m)] for v, m in enumerate(mate) if m > v)


def _layered(chance, n, density, high_range, low_bits):
    """Edges whose weight is a small, much-tied high part over a tie-break in ``low_bits``
    that no matching's sum carries out of (at most n/2 edges, each below 2**low_bits / n)."""
    cap = (1 << low_bits) // max(1, n)
    return [
        (i, j, (chance.randint(0, high_range) << low_bits) | chance.randint(0, cap))
        for i, j in itertools.combinations(range(n), 2)
        if chance.random() < density
    ]


def test_two_step_solve_equals_exhaustive_search():
    chance = random.Random(28)
    for _ in range(300):
        n = chance.randint(2, 9)
        low_bits = chance.choice([3, 8, 40])
        edges = _layered(chance, n, chance.choice([0.4, 0.7, 1.0]), chance.randint(1, 3), low_bits)
        weights = {(min(i, j), max(i, j)): w for i, j, w in edges}
        best = max(sum(weights[e] for e in m) for m in _all_matchings(n, weights))
        assert _total(max_weight_matching(n, edges, low_bits), weights) == best
        assert _total(max_weight_matching(n, edges), weights) == best


def test_every_optimal_matching_uses_tight_edges_only():
    # The edges the first step keeps must hold every matching optimal on the high parts (so
    # the second step loses none of the candidates), blossoms or not.
    chance = random.Random(11)
    for _ in range(300):
        n = chance.randint(2, 9)
        edges = [
            (i, j, chance.randint(0, 4))
            for i, j in itertools.combinations(range(n), 2)
            if chance.random() < 0.7
        ]
        weights = {(min(i, j), max(i, j)): w for i, j, w in edges}
        _mate, tight = _blossom(n, edges, True)
        assert tight is not None  # the duals the algorithm ends with are a dual solution
        kept = {
            (min(i, j), max(i, j)) for (i, j, _w), keep in zip(edges, tight, strict=True) if keep
        }
        matchings = _all_matchings(n, weights)
        best = max(sum(weights[e] for e in m) for m in matchings)
        for m in matchings:
            if sum(weights[e] for e in m) == best:
                assert m <= kept


def test_two_step_solve_equals_one_step_on_big_dense_graphs():
    # Brackets' sizes, many ties in the high part and a transposition-like tie-break of
    # hundreds of bits: the two solves find matchings of the same (greatest) weight.
    chance = random.Random(5)
    for n in (30, 51, 80):
        for density in (0.5, 0.95):
            edges = _layered(chance, n, density, 3, 400)
            weights = {(min(i, j), max(i, j)): w for i, j, w in edges}
            one = _total(max_weight_matching(n, edges), weights)
            assert _total(max_weight_matching(n, edges, 400), weights) == one


def test_unique_optimum_is_found_whatever_the_path():
    # Distinct subset-sum weights (powers of two) make the optimum unique: both solves must
    # return that very matching, as the Dutch brackets' order fields require.
    chance = random.Random(3)
    for _ in range(40):
        n = chance.randint(6, 24)
        pairs = [p for p in itertools.combinations(range(n), 2) if chance.random() < 0.6]
        order = list(range(len(pairs)))
        chance.shuffle(order)
        edges = [
            (i, j, (chance.randint(1, 2) << (len(pairs) + 1)) | (1 << k))
            for (i, j), k in zip(pairs, order, strict=True)
        ]
        assert max_weight_matching(n, edges, len(pairs) + 1) == max_weight_matching(n, edges)


@st.composite
def _graphs(draw):
    """A small graph and a ``low_bits`` promise its weights keep: random weights, a tie-heavy
    high part over a tie-break, or lexicographic digits (one per vertex, as the Dutch S2 order:
    the lower end's digit, base n+1, the first vertex's the most significant) over a few
    short quality values."""
    n = draw(st.integers(min_value=2, max_value=8))
    pairs = [p for p in itertools.combinations(range(n), 2) if draw(st.booleans())]
    kind = draw(st.sampled_from(["random", "layered", "lexicographic"]))
    if kind == "random":
        weights = [draw(st.integers(min_value=0, max_value=6)) for _ in pairs]
        return n, list(zip(pairs, weights, strict=True)), 0
    span = n + 1
    low_bits = (span**n).bit_length() + 4
    edges = []
    for i, j in pairs:
        # two short fields (the second one's sums stay below 2**8: a chain of two promises)
        high = (draw(st.integers(min_value=0, max_value=2)) << 8) | draw(
            st.integers(min_value=1, max_value=3)
        )
        if kind == "layered":
            low = draw(st.integers(min_value=0, max_value=(1 << low_bits) // n))
        else:
            low = span ** (n - 1 - i) * (span - 1 - j)
        edges.append(((i, j), (high << low_bits) | low))
    return n, edges, draw(st.sampled_from([0, low_bits, [low_bits + 8, low_bits]]))


@settings(max_examples=400, deadline=None)
@given(_graphs())
def test_tight_edges_hold_every_optimal_matching_and_the_matching_is_optimal(graph):
    n, weighted, low_bits = graph
    edges = [(i, j, w) for (i, j), w in weighted]
    weights = dict(weighted)
    mate, tight = max_weight_matching_tight(n, edges, low_bits)
    matchings = _all_matchings(n, weights)
    best = max(sum(weights[e] for e in m) for m in matchings)
    assert _total(mate, weights) == best
    kept = {(i, j) for (i, j, _w), keep in zip(edges, tight, strict=True) if keep}
    for m in matchings:
        if sum(weights[e] for e in m) == best:
            assert m <= kept
    assert max_weight_matching_tight(n, edges, low_bits, False) == (mate, [])
