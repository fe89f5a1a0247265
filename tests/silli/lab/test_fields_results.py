"""Fields and the result model of the format lab."""

import math
import random

import pytest

from apps.silli.entrants import Entrant
from apps.silli.lab.fields import FieldError, entrants_field, parse_field
from apps.silli.lab.results import (
    DRAW_MAX,
    FORM_SD,
    expected_score,
    play_game,
    probabilities,
    results_rng,
    strengths,
)


def test_model1_is_the_papers_field():
    ratings = parse_field("model1:432").ratings
    assert len(ratings) == 432
    assert ratings == sorted(ratings, reverse=True)
    assert 2650 <= ratings[0] <= 2700 and 1000 <= ratings[-1] <= 1100
    mean = sum(ratings) / len(ratings)
    assert abs(mean - (0.4 * 1900 + 0.6 * 2000)) < 25  # truncation moves it a little


def test_model2_and_linear():
    model2 = parse_field("model2:432").ratings
    assert 2750 <= model2[0] <= 2800 and model2[-1] >= 1000
    assert parse_field("linear:5:1000:2000").ratings == [2000, 1750, 1500, 1250, 1000]


@pytest.mark.parametrize("text", ["model3:10", "model1:x", "model1:1", "linear:10:2000:1000", ""])
def test_bad_fields(text):
    with pytest.raises(FieldError):
        parse_field(text)


def test_entrants_field_orders_by_rating_and_needs_ratings():
    entrants = [
        Entrant("A", "a", "ITA", 1800),
        Entrant("B", "b", "GER", 2100),
        Entrant("C", "c", "GER", 1800),
    ]
    field = entrants_field(entrants)
    assert [p.entrant.code for p in field.players] == ["B", "A", "C"]
    assert field.nations == 2
    with pytest.raises(FieldError, match="without a rating"):
        entrants_field([*entrants, Entrant("D", "d", "ITA")])


def test_expected_score_is_elo():
    assert expected_score(0) == 0.5
    assert expected_score(200) == pytest.approx(0.7597, abs=1e-4)
    assert expected_score(-400) == pytest.approx(1 / 11)


def test_probabilities_are_valid_and_keep_the_expectation():
    for mean in range(800, 3001, 100):
        for diff in range(-1000, 1001, 25):
            win, draw, loss = probabilities(mean + diff / 2, mean - diff / 2)
            assert min(win, draw, loss) >= 0
            assert win + draw + loss == pytest.approx(1)
            assert win + draw / 2 == pytest.approx(expected_score(diff))
            assert draw <= DRAW_MAX


@pytest.mark.parametrize("diff", [0, 100, 250, 500])
def test_expected_score_calibration(diff):
    """A large sample of games at a fixed difference scores E within tolerance."""
    chance = random.Random(diff)
    games = 200_000
    white = 2000 + diff / 2
    black = 2000 - diff / 2
    half_points = sum(play_game(white, black, chance.random()) for _ in range(games))
    e = expected_score(diff)
    # four standard errors of a mean of scores in [0, 1]
    tolerance = 4 * math.sqrt(e * (1 - e) / games)
    assert abs(half_points / 2 / games - e) < tolerance


def test_draw_share_follows_the_model():
    chance = random.Random(7)
    games = 100_000
    draws = sum(play_game(2500, 2500, chance.random()) == 1 for _ in range(games))
    assert draws / games == pytest.approx(probabilities(2500, 2500)[1], abs=0.01)


def test_results_rng_repeats():
    assert results_rng("s", "x").random() == results_rng("s", "x").random()
    assert results_rng("s", "x").random() != results_rng("s", "y").random()


def test_form_moves_each_player_by_a_normal_deviation_of_the_set_spread():
    ratings = [2000] * 20_000
    chance = random.Random(7)
    drawn = strengths(ratings, FORM_SD, chance.random)
    deviations = [s - 2000 for s in drawn]
    mean = sum(deviations) / len(deviations)
    sd = math.sqrt(sum((d - mean) ** 2 for d in deviations) / len(deviations))
    assert abs(mean) < 4 * FORM_SD / math.sqrt(len(deviations))
    assert sd == pytest.approx(FORM_SD, rel=0.03)
    # one number per player, in the order given: the same numbers give the same strengths
    assert strengths(ratings[:5], FORM_SD, random.Random(7).random) == drawn[:5]


def test_without_form_the_strengths_are_the_ratings_and_no_number_is_drawn():
    chance = random.Random(3)
    assert strengths([2400, 1800], 0.0, chance.random) == [2400.0, 1800.0]
    assert chance.random() == random.Random(3).random()


def test_a_uniform_number_of_zero_gives_a_finite_strength():
    assert math.isfinite(strengths([2000], FORM_SD, lambda: 0.0)[0])


@pytest.mark.parametrize("sd", [-1.0, 401.0, math.nan])
def test_a_form_spread_out_of_range_is_refused(sd):
    with pytest.raises(ValueError, match="form"):
        strengths([2000], sd, random.random)
