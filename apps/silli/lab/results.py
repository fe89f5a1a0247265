"""Game results drawn from ratings: a player's form, the Elo expectation and a draw model.

**Form.** A rating is an estimate of strength, and in one tournament a player plays at a
strength of their own: a junior whose rating lags behind, a player out of practice, a good or
bad fortnight. In each simulated tournament every player's *strength* is

    s = rating + f,   f ~ N(0, σ),   σ = FORM_SD = 85 points,

drawn once for the whole tournament (one uniform number per player, in rating order, through
the normal quantile function). σ is of the size of a rating's uncertainty (Glicko's rating
deviation of a regularly active player is 50–100). It was set where the plain Swiss on the
paper's Model1 field (432 players, 9 rounds) meets the paper's mean opponent difference, 286
points; the paper's share table, and every Baku figure, then serve as checks (README). With
σ = 0 every player plays exactly at their rating, and the shares of games over 200–250 points
run 7–10 points below the paper's: results that follow the ratings too faithfully keep the
score groups in rating order. ``form_sd`` is a setting of a run (``--form-sd``).

The expected score of a player ``d`` strength points above the opponent is Elo's

    E(d) = 1 / (1 + 10^(−d/400)).

**Draw model.** The draw probability of a game between players of mean strength ``m`` and
difference ``d`` is

    p_draw = D(m) · 4·E(d)·(1 − E(d)),   D(m) = clamp(0.20 + 0.0003·(m − 2000), 0.05, 0.45),

so two equal players draw 20 % of their games at 2000, 35 % at 2500, 41 % at 2700 and 5 % at
1500 — the rise of the draw rate with strength seen in rated open tournaments — and a game
draws the less often the more lopsided it is (the factor 4E(1−E) is 1 between equals, 0.17 at
530 points: at Politiken Cup 2015, whose round 1 had a mean difference of 530, the model
expects 10 draws in 211 games where 15 were played). This is our own simple model, not the
one of Milvang's "Probability for the outcome of a chess game based on rating", which the
paper used and which we do not have. The stronger player wins with ``p_win = E − p_draw/2``
and loses with ``p_loss = 1 − E − p_draw/2``. Both are ≥ 0 because ``D ≤ ½``
(``p_draw/2 ≤ E(1−E) ≤ min(E, 1−E)``), and the expected score is ``p_win + p_draw/2 = E``
exactly, whatever ``D``: the model changes how points are split into wins and draws, never
how many points a strength difference is worth. (Correspondence chess draws far more often at
the top than this over-the-board rate.)

One uniform number per game decides it: below ``p_white_win`` White wins, below
``p_white_win + p_draw`` it is a draw, otherwise Black wins. The uniform numbers come from a
:class:`random.Random` seeded from the product's :class:`~apps.silli.rng.ChanceStream`
(:func:`results_rng`), so a seed repeats a run exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from statistics import NormalDist

from ..rng import ChanceStream

FORM_SD = 85.0
"""σ of a player's form in one tournament, in rating points (see the module's text)."""
MAX_FORM_SD = 400.0

DRAW_AT_2000 = 0.20
DRAW_SLOPE = 0.0003
DRAW_MIN = 0.05
DRAW_MAX = 0.45

WHITE_WINS = 2
DRAW = 1
BLACK_WINS = 0
"""A game's result as White's score in half-points."""


def expected_score(difference: float) -> float:
    """Elo's expected score of the player ``difference`` points above the opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -difference / 400.0))


def draw_share(mean_rating: float) -> float:
    """D(m): the draw probability between two equal players of rating ``mean_rating``."""
    return min(DRAW_MAX, max(DRAW_MIN, DRAW_AT_2000 + DRAW_SLOPE * (mean_rating - 2000.0)))


def probabilities(white: float, black: float) -> tuple[float, float, float]:
    """(White wins, draw, Black wins) for players rated ``white`` and ``black``."""
    e = expected_score(white - black)
    draw = draw_share((white + black) / 2.0) * 4.0 * e * (1.0 - e)
    return e - draw / 2.0, draw, 1.0 - e - draw / 2.0


def play_game(white: float, black: float, uniform: float) -> int:
    """White's score in half-points (2, 1, 0) for a uniform number in [0, 1)."""
    e = 1.0 / (1.0 + math.pow(10.0, (black - white) / 400.0))
    mean = (white + black) / 2.0
    d = min(DRAW_MAX, max(DRAW_MIN, DRAW_AT_2000 + DRAW_SLOPE * (mean - 2000.0)))
    draw = d * 4.0 * e * (1.0 - e)
    win = e - draw / 2.0
    if uniform < win:
        return WHITE_WINS
    if uniform < win + draw:
        return DRAW
    return BLACK_WINS


def check_form_sd(form_sd: float) -> None:
    """A ValueError unless ``form_sd`` is a usable σ of the form (0 to ``MAX_FORM_SD``)."""
    if not 0.0 <= form_sd <= MAX_FORM_SD:  # NaN too
        raise ValueError(f"the form's standard deviation must be 0..{MAX_FORM_SD:g} points")


def strengths(ratings: Sequence[int], form_sd: float, uniform: Callable[[], float]) -> list[float]:
    """Each player's strength for one tournament: rating + N(0, ``form_sd``), one uniform
    number per player in the order given; with ``form_sd`` 0 the ratings, no number drawn."""
    check_form_sd(form_sd)
    if form_sd == 0.0:
        return [float(r) for r in ratings]
    form = NormalDist(0.0, form_sd)
    tiny = 1e-12  # random() may return 0.0, whose quantile is -infinity
    return [r + form.inv_cdf(min(max(uniform(), tiny), 1.0 - tiny)) for r in ratings]


def results_rng(seed: str, label: str) -> random.Random:
    """A :class:`random.Random` seeded with the first 64-bit word of ``ChanceStream(seed,
    label)``; :meth:`random.Random.random` of an integer-seeded generator is stable across
    Python versions."""
    return random.Random(ChanceStream(seed, label).word())
