"""Title-norm figures of one group by the individual method.

For a norm level (:class:`NormLevel`: IM at 2450, say), a player's *requirement* is the sum,
over their rated games, of the expected score a player rated at the level would have against
that game's opponent (:func:`~apps.ratings.elo.expected_score`, the difference capped at
400), rounded up to the next half point (:func:`norm_requirement`). The player has the norm
when they played at least :data:`MIN_GAMES` rated games and their score in them reaches the
requirement. An opponent met twice counts twice. Rated games are as in the rating report
(:func:`~apps.ratings.games.rated_games`): played, against a rated opponent; the player's own
rating plays no part.

These figures are :data:`UNOFFICIAL`: a title norm also needs a registered title tournament
and the rules on opponents' titles and federations that this module does not check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction

from .elo import CONTEXT, expected_score, total
from .games import Player, PlayerId, rated_games

MIN_GAMES = 8
"""The fewest rated games a norm needs."""

UNOFFICIAL = "unofficial unless the event is a registered title tournament"
"""The words that go with every norm figure shown."""


@dataclass(frozen=True, slots=True)
class NormLevel:
    """A title norm's level: its short name and the rating it is measured at."""

    code: str
    rating: int


GM = NormLevel("GM", 2600)
SIM = NormLevel("SIM", 2500)
IM = NormLevel("IM", 2450)
CCM = NormLevel("CCM", 2300)
CCE = NormLevel("CCE", 2150)

NORM_LEVELS: Mapping[str, NormLevel] = {level.code: level for level in (GM, SIM, IM, CCM, CCE)}
"""The correspondence-chess norm levels by code; any other :class:`NormLevel` works too."""


@dataclass(frozen=True, slots=True)
class NormFigure:
    """One player's figures for one norm level.

    ``games`` and ``score`` are the player's rated games and their score in them;
    ``expected`` is the unrounded sum the ``requirement`` is rounded up from.
    """

    id: PlayerId
    level: NormLevel
    games: int
    score: Fraction
    expected: Decimal
    requirement: Fraction
    min_games: int = MIN_GAMES

    @property
    def achieved(self) -> bool:
        """True when the player played enough rated games and scored the requirement."""
        return self.games >= self.min_games and self.score >= self.requirement

    def text(self) -> str:
        """The figure as a crosstable shows it.

        >>> figure = NormFigure(1, IM, 9, Fraction(7), Decimal("6.3"), Fraction(13, 2))
        >>> figure.text()
        'IM norm: needs 6½, has 7 ✓'
        >>> NormFigure(1, IM, 7, Fraction(6), Decimal("4.8"), Fraction(5)).text()
        'IM norm: 7 rated games, at least 8 needed'
        """
        if self.games < self.min_games:
            return (
                f"{self.level.code} norm: {self.games} rated games, "
                f"at least {self.min_games} needed"
            )
        mark = " ✓" if self.achieved else ""
        return (
            f"{self.level.code} norm: needs {points_text(self.requirement)}, "
            f"has {points_text(self.score)}{mark}"
        )


def norm_requirement(level_rating: int, opponent_ratings: Iterable[int]) -> Fraction:
    """The score a norm at ``level_rating`` needs against these opponents (one per game):
    the sum of the expected scores, rounded up to the next half point.

        >>> norm_requirement(2450, [2450] * 9)
        Fraction(9, 2)
        >>> norm_requirement(2450, [2350] * 9)
        Fraction(6, 1)
    """
    return half_points_up(total(expected_score(level_rating, r) for r in opponent_ratings))


def half_points_up(value: Decimal) -> Fraction:
    """``value`` rounded up to a multiple of ½ (a multiple of ½ stays as it is)."""
    halves = CONTEXT.multiply(value, Decimal(2)).to_integral_value(rounding=ROUND_CEILING)
    return Fraction(int(halves), 2)


def norm_figures(
    players: Sequence[Player], level: NormLevel, *, min_games: int = MIN_GAMES
) -> list[NormFigure]:
    """Every player's :class:`NormFigure` at ``level``, in the order of ``players``.

    Raises :class:`ValueError` for an input :func:`~apps.ratings.games.rated_games` refuses.
    """
    figures = []
    for player_id, games in rated_games(players).items():
        expected = total(expected_score(level.rating, g.opponent_rating) for g in games)
        figures.append(
            NormFigure(
                id=player_id,
                level=level,
                games=len(games),
                score=sum((g.score for g in games), Fraction(0)),
                expected=expected,
                requirement=half_points_up(expected),
                min_games=min_games,
            )
        )
    return figures


def points_text(points: Fraction) -> str:
    """A score as a crosstable writes it: ``7``, ``6½``, ``½``.

    >>> points_text(Fraction(13, 2)), points_text(Fraction(1, 2)), points_text(Fraction(7))
    ('6½', '½', '7')
    """
    whole, half = divmod(points * 2, 2)
    if half not in (0, 1):
        raise ValueError(f"{points} is not a multiple of ½")
    if not half:
        return str(int(whole))
    return f"{int(whole) or ''}½"
