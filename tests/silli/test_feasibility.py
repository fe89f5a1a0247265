"""Feasibility before the draw (apps/silli/feasibility.py): which circles have a formula, what
the division makes of N entrants, and the nearest workable settings.

"Drawable" below is always the engine's own answer: its division (``division_sizes_of``, what
the draw divides with) and its formula choice (``choose_formula``, what each group's draw
uses), never the feasibility module's tables.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.silli.division import group_sizes
from apps.silli.draw import DrawError, DrawSettings, division_sizes_of, draw_stage
from apps.silli.feasibility import (
    THRESHOLDS,
    Feasibility,
    division_sizes,
    even_sizes,
    feasibility,
    has_formula,
)
from apps.silli.formula import (
    NoFormulaError,
    check_given,
    choose_formula,
    greedy_formula,
    search_formula,
)
from apps.silli.synth import make_entrants


def engine_draws(n: int, games: int, formula: tuple[int, ...] | None = None) -> bool:
    """The engine's formula choice for a group of n seats succeeds."""
    try:
        if formula:
            check_given(n, games, formula)
        else:
            choose_formula(n, games)
    except NoFormulaError:
        return False
    return True


def engine_sizes(total: int, games: int, minimum: int, **kw) -> list[int] | None:
    try:
        return division_sizes_of(
            total, DrawSettings(games_per_player=games, min_group_size=minimum, **kw)
        )
    except DrawError:
        return None


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_the_table_is_the_engines_search(k):
    """Every circle up to where the natural formula is always valid: the table says what an
    exhaustive search finds (and above it, the natural formula holds)."""
    top = 4 * max(greedy_formula(k)) + 5
    for n in range(3, top):
        assert has_formula(n, 2 * k) == (search_formula(n, k) is not None), n


@pytest.mark.slow
def test_the_ten_game_table_is_the_engines_search():
    for n in range(3, 4 * 29 + 5):
        assert has_formula(n, 10) == (search_formula(n, 5) is not None), n


def test_the_documented_thresholds():
    assert THRESHOLDS[4] == (46, (47,))
    assert THRESHOLDS[5] == (69, (72, 73))
    assert [n for n in range(40, 80) if not has_formula(n, 8)] == [*range(40, 46), 47]
    assert [n for n in range(60, 80) if not has_formula(n, 10)] == [*range(60, 69), 72, 73]


def test_twelve_games_use_the_search_within_a_budget():
    assert has_formula(80, 12) is False  # below the counting bound (84)
    assert has_formula(400, 12, budget=50_000) is True
    assert has_formula(90, 12, budget=1_000) is None  # not known within the budget


def test_the_issues_examples():
    forty = feasibility(200, 8, 40)
    assert forty.status == "adjusted"
    assert forty.plain_sizes == (40,) * 5 and forty.sizes == (50,) * 4
    assert "8 games per player need groups of at least 46" in forty.sentence
    assert "4 groups of 50" in forty.sentence

    semifinal = feasibility(60, 10, 50)
    assert semifinal.status == "impossible" and semifinal.smallest == 69
    assert [(s.kind, s.value, s.sizes) for s in semifinal.suggestions] == [
        ("games", 8, (60,)),
        ("entrants", 69, (69,)),  # no number below 60 can be drawn with 10 games
        ("round_robin", 59, (60,)),
    ]


def test_nearest_entrants_on_both_sides():
    found = feasibility(47, 8, 40)
    assert found.status == "impossible"
    assert [s.value for s in found.suggestion("entrants")] == [46, 48]
    assert found.suggestion("games")[0].value == 6


def test_the_division_never_changes_a_drawable_draw():
    # 3,099 with minimum 100 and 10 games: the paper's Cup, as before.
    assert feasibility(3099, 10, 100).sizes == tuple(group_sizes(3099, 100))
    # 141 with minimum 46 and 8 games would be 3 × 47: 2 groups of 71 and 70 instead.
    assert division_sizes(141, 46, lambda n: has_formula(n, 8)) == [71, 70]


def test_the_draw_divides_around_a_size_without_formula():
    entrants = make_entrants(94, "feasible", nations=20, multi_entry_share=0)
    draw = draw_stage(
        entrants, DrawSettings(games_per_player=8, min_group_size=46, separate_nations=False), "s"
    )
    assert [g.size for g in draw.groups] == [94]  # not 2 × 47
    with pytest.raises(DrawError, match="at least 46"):
        draw_stage(
            entrants[:45],
            DrawSettings(games_per_player=8, min_group_size=40, separate_nations=False),
            "s",
        )


def test_a_round_robin_is_never_refused():
    found = feasibility(11, 10, 20, format="round_robin")
    assert found.status == "ok" and found.sizes == (11,)


def test_a_formula_by_hand_is_checked_on_the_sizes():
    found = feasibility(47, 8, 40, formula=(1, 4, 10, 17))
    assert found.status == "impossible" and found.bad_sizes == (47,)
    # 1.4.10.17 is valid at 46, 49, 53, 56–60 and from 62 on (docs/silli.md §2).
    assert feasibility(120, 8, 60, formula=(1, 4, 10, 17)).sizes == (60, 60)
    assert feasibility(98, 8, 49, formula=(1, 4, 10, 17)).sizes == (49, 49)
    assert feasibility(100, 8, 50, formula=(1, 4, 10, 17)).sizes == (100,)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

GAMES = st.sampled_from([2, 4, 6, 8, 10])


def check_suggestions(found: Feasibility, formula: tuple[int, ...] | None = None) -> None:
    """Every suggestion is drawable by the engine: its sizes are what the draw's division
    makes with that setting, and each of them has a formula the engine chooses."""
    n, m, games = found.entrants, found.min_group_size, found.games
    for s in found.suggestions:
        if s.kind == "games":
            assert s.value < games
            assert engine_sizes(n, s.value, m) == list(s.sizes)
            assert all(engine_draws(size, s.value) for size in s.sizes)
        elif s.kind == "entrants":
            assert s.value != n
            kw = {"formula": formula} if formula else {}
            assert engine_sizes(s.value, games, m, **kw) == list(s.sizes)
            assert all(engine_draws(size, games, formula) for size in s.sizes)
        elif s.kind == "auto_formula":
            assert engine_sizes(n, games, m) == list(s.sizes)
            assert all(engine_draws(size, games) for size in s.sizes)
        elif s.kind == "round_robin":
            assert list(s.sizes) == group_sizes(n, m) and s.value == max(s.sizes) - 1


@settings(max_examples=300, deadline=None)
@given(total=st.integers(1, 3000), games=GAMES, minimum=st.integers(2, 200))
def test_feasibility_is_the_engines_answer(total, games, minimum):
    found = feasibility(total, games, minimum)
    plain = group_sizes(total, minimum)
    drawn = engine_sizes(total, games, minimum)
    # What it says the draw makes is what the draw makes, and every size has a formula.
    assert (list(found.sizes) if found.sizes else None) == drawn
    if found.sizes:
        assert all(engine_draws(n, games) for n in found.sizes)
        assert sum(found.sizes) == total and max(found.sizes) - min(found.sizes) <= 1
        assert len(found.sizes) <= len(plain)
        assert min(found.sizes) >= min(minimum, total)
    # A draw that the first rule could make is left as it was.
    if all(engine_draws(n, games) for n in plain):
        assert found.status == "ok" and list(found.sizes or ()) == plain
    # Never refused while some number of groups of at least the minimum could be drawn.
    if found.status == "impossible":
        for count in range(1, len(plain) + 1):
            assert not all(engine_draws(n, games) for n in even_sizes(total, count))
        assert found.suggestions
    check_suggestions(found)


@settings(max_examples=100, deadline=None)
@given(total=st.integers(1, 400), minimum=st.integers(2, 120))
def test_feasibility_with_a_formula_by_hand(total, minimum):
    formula = (1, 4, 10, 17)
    found = feasibility(total, 8, minimum, formula=formula)
    drawn = engine_sizes(total, 8, minimum, formula=formula)
    assert (list(found.sizes) if found.sizes else None) == drawn
    if found.sizes:
        assert all(engine_draws(n, 8, formula) for n in found.sizes)
    check_suggestions(found, formula)
