"""Title-norm figures by the individual method (apps/ratings/norms.py, docs/ratings.md §3)."""

from __future__ import annotations

import doctest
from decimal import Decimal
from fractions import Fraction as F

import pytest

from apps.ratings import norms
from apps.ratings.games import Game, Player
from apps.ratings.norms import (
    IM,
    NORM_LEVELS,
    UNOFFICIAL,
    NormFigure,
    NormLevel,
    half_points_up,
    norm_figures,
    norm_requirement,
    points_text,
)


def test_the_docstring_examples_hold():
    assert doctest.testmod(norms).failed == 0


def test_the_levels_and_the_words():
    assert {code: level.rating for code, level in NORM_LEVELS.items()} == {
        "GM": 2600,
        "SIM": 2500,
        "IM": 2450,
        "CCM": 2300,
        "CCE": 2150,
    }
    assert UNOFFICIAL == "unofficial unless the event is a registered title tournament"


@pytest.mark.parametrize(
    "value, rounded",
    [("0", F(0)), ("5.5", F(11, 2)), ("5.5000001", F(6)), ("5.0001", F(11, 2)), ("5.9999", F(6))],
)
def test_a_requirement_is_rounded_up_to_the_next_half_point(value, rounded):
    assert half_points_up(Decimal(value)) == rounded


def test_the_requirement_sums_a_level_rated_players_expected_scores_difference_capped():
    # 2450 against 2000 and 2900 counts as ±400: 10/11 + 1/11 = 1 exactly; against 2400 0.5714…
    assert norm_requirement(2450, [2000, 2900]) == 1
    assert norm_requirement(2450, [1000, 2900]) == 1
    assert norm_requirement(2450, [2400, 2000, 2900]) == 2
    assert norm_requirement(2450, []) == 0


def test_an_opponent_met_twice_counts_twice_and_unrated_opponents_not_at_all():
    games = (Game(2, F(1)), Game(2, F(1, 2)), Game(3, F(1)), Game(4, F(1), played=False))
    players = [
        Player(1, None, 0, games),
        Player(2, 2450, 0, (Game(1, F(0)), Game(1, F(1, 2)))),
        Player(3, None, 0, (Game(1, F(0)),)),
        Player(4, 2450, 0, (Game(1, F(0), played=False),)),
    ]
    figure = norm_figures(players, IM)[0]
    assert (figure.games, figure.score, figure.expected, figure.requirement) == (
        2,
        F(3, 2),
        Decimal(1),
        F(1),
    )


def test_a_norm_needs_eight_rated_games_and_a_score_reaching_the_requirement():
    def figure(games: int, score: F, requirement: F) -> NormFigure:
        return NormFigure(1, IM, games, score, Decimal(float(requirement)), requirement)

    assert figure(8, F(6), F(6)).achieved
    assert not figure(8, F(11, 2), F(6)).achieved
    assert not figure(7, F(7), F(3)).achieved
    assert NormFigure(1, IM, 7, F(7), Decimal(3), F(3), min_games=7).achieved


def test_the_text_a_crosstable_shows():
    assert NormFigure(1, IM, 9, F(7), Decimal("6.2"), F(13, 2)).text() == (
        "IM norm: needs 6½, has 7 ✓"
    )
    assert NormFigure(1, IM, 9, F(6), Decimal("6.2"), F(13, 2)).text() == (
        "IM norm: needs 6½, has 6"
    )
    level = NormLevel("SM", 2550)
    assert NormFigure(1, level, 5, F(5), Decimal("3.9"), F(4)).text() == (
        "SM norm: 5 rated games, at least 8 needed"
    )


def test_points_are_written_with_the_half_sign():
    assert [points_text(F(n, 2)) for n in range(4)] == ["0", "½", "1", "1½"]
    with pytest.raises(ValueError, match="not a multiple"):
        points_text(F(1, 3))
