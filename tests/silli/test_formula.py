"""Formula validity and selection against docs/silli.md §1–§3 and Silli's paper."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.silli.circle import black_opponents, circle_games, white_opponents
from apps.silli.formula import (
    NoFormulaError,
    bad_relations,
    certificate,
    check_given,
    choose_formula,
    greedy_formula,
    is_valid,
    search_formula,
    valid_formulas,
)


def formulas_for(n: int, k: int) -> list[tuple[int, ...]]:
    found = [
        greedy_formula(k),
        greedy_formula(k, reserve=True),
        greedy_formula(k, odd=True),
        greedy_formula(k, odd=True, reserve=True),
    ]
    for odd in (False, True):
        searched = search_formula(n, k, odd)
        if searched:
            found.append(searched)
    return found


@pytest.mark.parametrize("k", [4, 5])
def test_criterion_agrees_with_brute_force_and_relations_for_n_10_to_300(k):
    checked = 0
    for n in range(10, 301):
        for formula in formulas_for(n, k):
            brute = certificate(n, formula).valid
            assert is_valid(n, formula) == brute, (n, formula)
            assert (not bad_relations(n, formula)) == brute, (n, formula)
            checked += 1
    assert checked > 4 * 291


@settings(max_examples=300, deadline=None)
@given(n=st.integers(10, 90), data=st.data())
def test_criterion_agrees_with_brute_force_on_random_formulas(n, data):
    k = data.draw(st.integers(2, 5))
    formula = tuple(sorted(data.draw(st.sets(st.integers(1, n - 1), min_size=k, max_size=k))))
    assert is_valid(n, formula) == certificate(n, formula).valid == (not bad_relations(n, formula))


def test_greedy_construction_gives_the_seeds_formulas():
    assert greedy_formula(4) == (1, 4, 10, 17)
    assert greedy_formula(5) == (1, 4, 10, 17, 29)
    assert greedy_formula(4, reserve=True) == (1, 4, 10, 22)
    assert greedy_formula(5, reserve=True) == (1, 4, 10, 17, 32)
    assert greedy_formula(4, odd=True) == (1, 5, 13, 29)
    assert greedy_formula(5, odd=True) == (1, 5, 13, 29, 49)
    assert greedy_formula(4, odd=True, reserve=True) == (1, 5, 13, 33)
    assert greedy_formula(5, odd=True, reserve=True) == (1, 5, 13, 29, 51)


def test_seed_worked_example_n_103():
    d = (1, 4, 10, 17, 29)
    assert is_valid(103, d)
    assert white_opponents(103, d, 50) == [51, 54, 60, 67, 79]
    assert black_opponents(103, d, 50) == [49, 46, 40, 33, 21]
    assert white_opponents(103, d, 103) == [1, 4, 10, 17, 29]
    assert black_opponents(103, d, 103) == [102, 99, 93, 86, 74]
    assert white_opponents(103, d, 3) == [4, 7, 13, 20, 32]
    assert black_opponents(103, d, 3) == [2, 102, 96, 89, 77]


def test_natural_ten_game_formula_invalid_at_104_valid_at_116():
    d = (1, 4, 10, 17, 29)
    assert not is_valid(104, d)
    assert any(r.startswith("29+29+29+17") for r in bad_relations(104, d))
    cert = certificate(104, d)
    first = cert.violations[0]
    assert (first.rule, first.seats, first.common) == ("principle 2", (1, 47), (18, 30, 76))
    assert is_valid(116, d) and certificate(116, d).valid  # 4·29 = 116 is harmless
    assert is_valid(104, (1, 4, 10, 17, 32))


def test_invalid_ranges_of_the_natural_formulas_match_the_facts():
    natural8 = [n for n in range(10, 401) if not is_valid(n, (1, 4, 10, 17))]
    assert natural8 == [*range(10, 46), 47, 48, 50, 51, 52, 54, 55, 61]
    natural10 = [n for n in range(10, 401) if not is_valid(n, (1, 4, 10, 17, 29))]
    assert natural10 == [*range(10, 81), 83, 85, 86, 87, 88, 91, 92, 97, 104]


@pytest.mark.parametrize(("n", "games"), [(45, 8), (47, 8), (68, 10), (72, 10), (73, 10)])
def test_no_formula_exists(n, games):
    assert search_formula(n, games // 2) is None
    with pytest.raises(NoFormulaError, match=f"No valid {games}-game formula exists") as err:
        choose_formula(n, games)
    assert "round robin" in str(err.value)


def test_exhaustive_counts_of_valid_ten_game_formulas_near_the_threshold():
    counts = [sum(1 for _ in valid_formulas(n, 5)) for n in range(66, 76)]
    assert counts == [0, 0, 0, 22, 12, 42, 0, 0, 18, 80]


@pytest.mark.parametrize(
    ("n", "k", "odd"), [(46, 4, False), (58, 4, True), (69, 4, False), (63, 5, False)]
)
def test_backtracking_enumeration_equals_itertools(n, k, odd):
    numbers = range(1, (n - 1) // 2 + 1, 2 if odd else 1)
    brute = [c for c in itertools.combinations(numbers, k) if is_valid(n, c)]
    assert sorted(valid_formulas(n, k, odd)) == brute


@pytest.mark.parametrize(
    ("n", "k", "odd", "expected"),
    [
        (46, 4, False, (6, 8, 9, 13)),
        (48, 4, False, (5, 9, 11, 12)),
        (69, 5, False, (1, 10, 14, 17, 22)),
        (70, 5, False, (8, 9, 13, 20, 23)),
        (71, 5, False, (5, 13, 14, 16, 20)),
        (74, 5, False, (2, 12, 13, 18, 21)),
        (75, 5, False, (7, 11, 16, 17, 19)),
        (300, 5, False, (7, 11, 16, 17, 19)),
        (70, 4, True, (7, 9, 15, 19)),
        (100, 4, True, (5, 13, 17, 19)),
        (110, 5, True, (1, 15, 21, 25, 33)),
        (120, 5, True, (13, 15, 19, 29, 37)),
        (122, 5, True, (7, 15, 25, 27, 31)),
    ],
)
def test_search_finds_the_smallest_largest_element(n, k, odd, expected):
    assert search_formula(n, k, odd) == expected


def test_no_all_odd_ten_game_formula_for_even_n_up_to_108():
    assert all(search_formula(n, 5, True) is None for n in range(10, 109, 2))
    assert [n for n in (112, 114, 116) if search_formula(n, 5, True)] == []


def test_selection_order_natural_reserve_searched():
    assert choose_formula(103, 10).rule == "natural"
    assert (choose_formula(104, 10).formula, choose_formula(104, 10).rule) == (
        (1, 4, 10, 17, 32),
        "reserve",
    )
    assert (choose_formula(97, 10).formula, choose_formula(97, 10).rule) == (
        (7, 11, 16, 17, 19),
        "searched",
    )
    assert choose_formula(100, 8, odd=True).formula == (5, 13, 17, 19)


def test_given_formula_is_checked_and_violations_named():
    assert check_given(104, 10, (32, 1, 4, 10, 17)).formula == (1, 4, 10, 17, 32)
    with pytest.raises(NoFormulaError, match="seats 1 and 47"):
        check_given(104, 10, (1, 4, 10, 17, 29))
    with pytest.raises(NoFormulaError, match="has 4 numbers"):
        check_given(104, 10, (1, 4, 10, 17))


def test_odd_number_of_games_is_refused():
    with pytest.raises(NoFormulaError, match="even"):
        choose_formula(100, 9)


@pytest.mark.parametrize("n", [75, 103, 104, 250])
def test_every_seat_has_k_white_and_k_black_games(n):
    choice = choose_formula(n, 10)
    games = circle_games(n, choice.formula)
    assert len(games) == n * 5
    for seat in range(1, n + 1):
        assert sum(1 for w, _ in games if w == seat) == 5
        assert sum(1 for _, b in games if b == seat) == 5
