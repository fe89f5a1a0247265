"""Division into groups: sizes, nation spread, persons, earlier groups, ratings."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.silli.division import DivisionError, DivisionSettings, divide, group_sizes
from apps.silli.entrants import Entrant
from apps.silli.rng import ChanceStream
from apps.silli.synth import make_entrants


def test_group_sizes_of_the_seed_example():
    sizes = group_sizes(3099, 100)
    assert sizes == [104] * 9 + [103] * 21
    assert group_sizes(630, 100) == [105] * 6
    assert group_sizes(99, 100) == [99]


@settings(max_examples=200)
@given(total=st.integers(50, 100_000), minimum=st.integers(1, 200))
def test_group_sizes_for_any_n(total, minimum):
    sizes = group_sizes(total, minimum)
    assert sum(sizes) == total
    assert len(sizes) == max(1, total // minimum)
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize(("count", "minimum"), [(50, 10), (777, 100), (3099, 100), (20_000, 100)])
def test_nations_persons_and_sizes(count, minimum):
    entrants = make_entrants(count, f"div-{count}", multi_entry_share=0.05)
    groups = divide(entrants, ChanceStream("s", "division"), DivisionSettings(minimum))
    assert [len(g) for g in groups] == group_sizes(count, minimum)
    assert sorted(e.code for g in groups for e in g) == sorted(e.code for e in entrants)
    for nation in {e.nation for e in entrants}:
        counts = [sum(1 for e in g if e.nation == nation) for g in groups]
        assert max(counts) - min(counts) <= 1
    for g in groups:
        assert max(Counter(e.person for e in g).values()) == 1


def test_person_with_entries_of_two_nations_is_still_separated():
    entrants = [
        Entrant(f"A{i:03d}", "x", "ITA" if i % 2 else "GER", 2000, f"P{i}") for i in range(300)
    ]
    entrants += [Entrant("Z1", "z", "ITA", 2000, "PZ"), Entrant("Z2", "z", "GER", 2000, "PZ")]
    for seed in map(str, range(20)):
        groups = divide(entrants, ChanceStream(seed, "division"), DivisionSettings(100))
        assert all(max(Counter(e.person for e in g).values()) == 1 for g in groups)


def test_person_with_more_entries_than_groups_is_refused():
    entrants = [
        Entrant(f"A{i}", "x", "ITA", None, "same" if i < 3 else f"P{i}") for i in range(200)
    ]
    with pytest.raises(DivisionError, match="person same holds 3 entries but the stage has only 2"):
        divide(entrants, ChanceStream("s", "d"), DivisionSettings(100))


def test_earlier_groups_are_spread_like_nations():
    entrants = make_entrants(630, "semi")
    earlier = {e.code: f"G{i % 30 + 1}" for i, e in enumerate(entrants)}
    groups = divide(entrants, ChanceStream("s", "division"), DivisionSettings(100), earlier)
    assert len(groups) == 6
    for name in set(earlier.values()):
        counts = [sum(1 for e in g if earlier[e.code] == name) for g in groups]
        assert max(counts) - min(counts) <= 1, (name, counts)
    for nation in {e.nation for e in entrants}:
        counts = [sum(1 for e in g if e.nation == nation) for g in groups]
        assert max(counts) - min(counts) <= 1


def test_rating_balance_narrows_the_spread_of_group_averages():
    entrants = make_entrants(2000, "ratings")

    def spread(groups):
        means = [sum(e.rating for e in g) / len(g) for g in groups]
        return max(means) - min(means)

    plain = divide(entrants, ChanceStream("s", "division"), DivisionSettings(100))
    balanced = divide(entrants, ChanceStream("s", "division"), DivisionSettings(100, True))
    assert spread(balanced) < spread(plain) / 3
    for nation in {e.nation for e in entrants}:
        counts = [sum(1 for e in g if e.nation == nation) for g in balanced]
        assert max(counts) - min(counts) <= 1


def test_division_does_not_depend_on_input_order():
    entrants = make_entrants(500, "order")
    a = divide(entrants, ChanceStream("s", "d"), DivisionSettings(100))
    b = divide(list(reversed(entrants)), ChanceStream("s", "d"), DivisionSettings(100))
    assert a == b
