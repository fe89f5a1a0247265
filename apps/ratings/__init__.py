"""Rating reports and title-norm figures: what one event's games mean for ratings and titles.

Pure Python (no Django, no other app), deterministic and typed; the rules and a worked example
are in ``docs/ratings.md``. The parts, one module each:

* :mod:`~apps.ratings.games` — the input (players with their rating and games) and which
  games are rated;
* :mod:`~apps.ratings.elo` — the expected score of the logistic (Elo) curve, difference
  capped at 400;
* :mod:`~apps.ratings.report` — the rating report behind the :class:`RatingSystem`
  interface, with FIDE's rules as the default system;
* :mod:`~apps.ratings.norms` — title-norm figures by the individual method.
"""

from .elo import expected_score
from .games import Game, Player, RatedGame, rated_games
from .norms import NORM_LEVELS, UNOFFICIAL, NormFigure, NormLevel, norm_figures, norm_requirement
from .report import FIDE, ExpectedGame, FideRating, RatingLine, RatingSystem, rating_report

__all__ = [
    "FIDE",
    "NORM_LEVELS",
    "UNOFFICIAL",
    "ExpectedGame",
    "FideRating",
    "Game",
    "NormFigure",
    "NormLevel",
    "Player",
    "RatedGame",
    "RatingLine",
    "RatingSystem",
    "expected_score",
    "norm_figures",
    "norm_requirement",
    "rated_games",
    "rating_report",
]
