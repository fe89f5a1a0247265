"""The rating report: rated games, expected scores, K, the change and its rounding
(apps/ratings/report.py, docs/ratings.md §1–§2)."""

from __future__ import annotations

import doctest
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction as F

import pytest

from apps.ratings import elo, games, report
from apps.ratings.elo import expected_score
from apps.ratings.games import Game, Player, RatedGame, rated_games
from apps.ratings.report import FIDE, ExpectedGame, RatingLine, RatingSystem, rating_report

WIN, DRAW, LOSS = F(1), F(1, 2), F(0)


def pair(a: int, b: int, score: F, played: bool = True) -> tuple[Game, Game]:
    return Game(b, score, played), Game(a, 1 - score, played)


def test_the_docstring_examples_hold():
    for module in (elo, games, report):
        assert doctest.testmod(module).failed == 0


def test_expected_score_is_the_logistic_curve_with_the_difference_capped_at_400():
    assert expected_score(2000, 2000) == Decimal("0.5")
    assert float(expected_score(2100, 2000)) == pytest.approx(1 / (1 + 10 ** (-100 / 400)))
    assert expected_score(2500, 2000) == expected_score(2400, 2000) == Decimal(10) / 11
    assert expected_score(1500, 2000) == 1 - Decimal(10) / 11


def test_expected_score_does_not_depend_on_the_callers_decimal_context():
    from decimal import localcontext

    value = expected_score(2345, 2187)
    with localcontext() as context:
        context.prec = 3
        assert expected_score(2345, 2187) == value


def test_only_played_games_against_rated_opponents_are_rated():
    players = [
        Player(
            1,
            2200,
            40,
            (Game(2, WIN), Game(3, WIN), Game(4, WIN, played=False), Game(None, WIN, played=False)),
        ),
        Player(2, 2100, 40, (Game(1, LOSS),)),
        Player(3, None, 0, (Game(1, LOSS),)),
        Player(4, 2000, 40, (Game(1, LOSS, played=False),)),
    ]
    rated = rated_games(players)
    assert rated[1] == (RatedGame(2, 2100, WIN),)
    assert rated[3] == (RatedGame(1, 2200, LOSS),)
    assert rated[4] == ()


@pytest.mark.parametrize(
    "players, message",
    [
        ([Player(1, 2000, 0, ()), Player(1, 2100, 0, ())], "same id"),
        ([Player(1, 2000, 0, (Game(7, WIN),))], "opponent 7 is not a player"),
        ([Player(1, 2000, 0, (Game(2, F(3, 4)),)), Player(2, 2000, 0, ())], "scores 3/4"),
    ],
)
def test_bad_input_is_refused(players, message):
    with pytest.raises(ValueError, match=message):
        rating_report(players)


def test_a_forfeit_scores_anything_because_it_is_not_rated():
    a, b = pair(1, 2, F(3), played=False)
    lines = rating_report([Player(1, 2000, 40, (a,)), Player(2, 2000, 40, (b,))])
    assert [len(line.games) for line in lines] == [0, 0]


@pytest.mark.parametrize(
    "rating, before, games, k",
    [
        (1800, 0, 9, 40),
        (2500, 29, 9, 40),
        (2399, 30, 9, 20),
        (2400, 30, 9, 10),
        (2399, 30, 35, 20),
        (2399, 30, 36, 19),
        (2100, 5, 17, 40),
        (2100, 5, 18, 38),
        (2100, 5, 700, 1),
        (2100, 5, 701, 0),
        (2100, 5, 0, 40),
    ],
)
def test_k_by_games_before_and_rating_reduced_to_keep_k_times_games_within_700(
    rating, before, games, k
):
    assert FIDE.k(rating, before, games) == k


def test_a_players_line():
    a1, b1 = pair(1, 2, WIN)
    a2, c1 = pair(1, 3, DRAW)
    lines = rating_report(
        [
            Player(1, 2300, 50, (a1, a2)),
            Player(2, 2200, 10, (b1,)),
            Player(3, 2450, 300, (c1,)),
        ]
    )
    line = lines[0]
    e2, e3 = expected_score(2300, 2200), expected_score(2300, 2450)
    assert line.games == (ExpectedGame(2, 2200, WIN, e2), ExpectedGame(3, 2450, DRAW, e3))
    assert (line.score, line.expected, line.k) == (F(3, 2), e2 + e3, 20)
    assert line.change == Decimal("11.3")  # 20 × (1.5 − 0.6401… − 0.2966…) = 11.266…
    assert line.new_rating == Decimal("2311.3")
    assert [lines[1].k, lines[2].k] == [40, 10]
    assert lines[1].change == Decimal("-14.4")  # 40 × (0 − 0.3599…)
    assert lines[2].change == Decimal("-2.0")  # 10 × (0.5 − 0.7034…)


def test_the_change_is_computed_from_unrounded_expected_scores_and_rounded_at_the_end():
    a, b = pair(1, 2, WIN)
    lines = rating_report([Player(1, 2060, 5, (a,)), Player(2, 2000, 5, (b,))])
    # E = 0.58549…: 40 × 0.41450… = 16.58… → 16.6 (with E rounded first to 0.59: 16.4)
    assert [line.change for line in lines] == [Decimal("16.6"), Decimal("-16.6")]


def test_two_players_with_the_same_k_get_opposite_changes():
    a, b = pair(1, 2, DRAW)
    lines = rating_report([Player(1, 2310, 50, (a,)), Player(2, 2127, 50, (b,))])
    assert lines[0].change == -lines[1].change == Decimal("-4.8")  # 20 × (0.5 − 0.7414…)


def test_an_unrated_players_line_is_provisional_and_changes_nothing():
    a, b = pair(1, 2, WIN)
    lines = rating_report([Player(1, None, 0, (a,)), Player(2, 2000, 40, (b,))])
    unrated, rated = lines
    assert unrated.provisional and not rated.provisional
    assert unrated.games == (ExpectedGame(2, 2000, WIN, None),)
    assert (unrated.score, unrated.expected, unrated.k, unrated.change) == (WIN, None, None, None)
    assert unrated.new_rating is None
    assert (rated.games, rated.change, rated.new_rating) == ((), Decimal("0.0"), Decimal("2000.0"))


class HalfK:
    """A federation's own system: FIDE's line with half of FIDE's K (rounded down)."""

    def rate(self, player: Player, games: Sequence[RatedGame]) -> RatingLine:
        line = FIDE.rate(player, games)
        if line.rating is None or line.k is None or line.expected is None:
            return line
        k = line.k // 2
        change = (k * (elo.decimal(line.score) - line.expected)).quantize(Decimal("0.1"))
        return RatingLine(line.id, line.rating, line.games, line.expected, k, change)


def test_another_rating_system_plugs_in():
    system: RatingSystem = HalfK()
    a, b = pair(1, 2, WIN)
    lines = rating_report([Player(1, 2000, 5, (a,)), Player(2, 2000, 5, (b,))], system)
    assert [(line.k, line.change) for line in lines] == [
        (20, Decimal("10.0")),
        (20, Decimal("-10.0")),
    ]
