"""Invariants of the rating and norm math, on generated groups (hypothesis)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction as F

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.ratings.elo import expected_score
from apps.ratings.games import Game, Player
from apps.ratings.norms import NormLevel, norm_figures, norm_requirement
from apps.ratings.report import FIDE, FideRating, rating_report

ratings = st.integers(1000, 2900)
scores = st.sampled_from([F(0), F(1, 2), F(1)])


@given(ratings, ratings)
def test_the_expected_scores_of_two_players_add_up_to_exactly_one(a, b):
    assert expected_score(a, b) + expected_score(b, a) == 1


@given(ratings, ratings)
def test_a_difference_beyond_400_counts_as_400(a, b):
    e = expected_score(a, b)
    assert expected_score(2000, 2400) <= e <= expected_score(2400, 2000) == Decimal(10) / 11
    if a - b >= 400:
        assert e == expected_score(b + 400, b)
    if b - a >= 400:
        assert e == expected_score(b - 400, b)


@given(ratings, ratings, ratings)
def test_the_expected_score_grows_with_the_rating(a, b, opponent):
    low, high = sorted((a, b))
    assert expected_score(low, opponent) <= expected_score(high, opponent)


@given(ratings, st.integers(0, 500), st.integers(0, 200))
def test_k_is_a_fide_value_or_the_largest_with_k_times_games_within_700(rating, before, games):
    k = FIDE.k(rating, before, games)
    base = 40 if before < 30 else 20 if rating < 2400 else 10
    assert k * games <= 700
    assert k == base or (k < base and (k + 1) * games > 700)


@st.composite
def closed_pools(draw):
    """Rated players who played only each other: each pair at most twice."""
    size = draw(st.integers(2, 12))
    pool = draw(st.lists(ratings, min_size=size, max_size=size))
    games: list[list[Game]] = [[] for _ in range(size)]
    for a in range(size):
        for b in range(a + 1, size):
            for score in draw(st.lists(scores, max_size=2)):
                games[a].append(Game(b, score))
                games[b].append(Game(a, 1 - score))
    return [Player(i, pool[i], 100, tuple(games[i])) for i in range(size)]


class SameK(FideRating):
    """FIDE's rules with one K for everybody."""

    def k(self, rating: int, rated_games: int, games: int) -> int:
        return 20


@settings(max_examples=150, deadline=None)
@given(closed_pools())
def test_the_changes_of_a_closed_pool_with_one_k_add_up_to_about_zero(players):
    lines = rating_report(players, SameK())
    changes = [line.change for line in lines]
    assert all(change is not None for change in changes)
    assert abs(sum(c for c in changes if c is not None)) <= Decimal("0.05") * len(lines)
    assert sum((line.score for line in lines), F(0)) == sum(len(line.games) for line in lines) / 2


@given(st.lists(ratings, max_size=20), st.integers(1800, 2800), st.integers(0, 400))
def test_the_requirement_is_a_multiple_of_a_half_at_most_a_half_above_the_sum_and_monotone(
    opponents, level, step
):
    requirement = norm_requirement(level, opponents)
    exact = sum((expected_score(level, r) for r in opponents), Decimal(0))
    assert (requirement * 2).denominator == 1
    assert (
        exact <= Decimal(requirement.numerator) / requirement.denominator < exact + Decimal("0.5")
    )
    assert norm_requirement(level + step, opponents) >= requirement


@settings(max_examples=100, deadline=None)
@given(closed_pools(), st.integers(1800, 2800))
def test_norm_figures_agree_with_the_requirement_and_the_rule(players, level):
    for figure in norm_figures(players, NormLevel("X", level)):
        player = next(p for p in players if p.id == figure.id)
        opponents = [next(p for p in players if p.id == g.opponent).rating for g in player.games]
        assert figure.requirement == norm_requirement(level, [r for r in opponents if r])
        assert figure.achieved == (figure.games >= 8 and figure.score >= figure.requirement)
