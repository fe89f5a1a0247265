"""The rating report of one group: each player's rated games, expected score and change.

:func:`rating_report` picks each player's rated games (:func:`~apps.ratings.games.rated_games`)
and hands them to a :class:`RatingSystem`, which turns them into the player's
:class:`RatingLine`. :data:`FIDE` (:class:`FideRating`) is the default system; a
federation's own formula (ICCF's, say) is another class with the same ``rate`` method.

FIDE's rules, as :class:`FideRating` applies them (FIDE's rating regulations):

* against each rated opponent, the expected score ``E = 1 / (1 + 10^(-D/400))``, the
  difference ``D`` capped at 400 (:func:`~apps.ratings.elo.expected_score`);
* the development coefficient K: 40 for a player with fewer than 30 rated games before the
  event, else 20 below 2400 and 10 from 2400; when ``K × games`` exceeds 700 (``games``:
  the rated games of this event), K is the largest whole number with ``K × games ≤ 700``;
* the change ``K × (score − ΣE)``, computed from the unrounded expected scores and rounded
  to one decimal at the end, half away from zero (so that two players' changes with the same
  K are exact opposites); the new rating is the rating plus the change.

An unrated player's line is provisional: their games and score against rated opponents,
but no expected score, K, change or new rating. FIDE's initial rating needs the games of a
whole rating period (at least five against rated opponents, and two hypothetical draws
against 1800-rated opponents), which one event does not give; it is left to the rating list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Protocol

from .elo import CONTEXT, decimal, expected_score, total
from .games import Player, PlayerId, RatedGame, rated_games

CHANGE_PLACES = Decimal("0.1")
"""A change is rounded to this (one decimal)."""


@dataclass(frozen=True, slots=True)
class ExpectedGame:
    """A rated game with the player's expected score in it (``None``: the player is unrated)."""

    opponent: PlayerId
    opponent_rating: int
    score: Fraction
    expected: Decimal | None


@dataclass(frozen=True, slots=True)
class RatingLine:
    """One player's line of a rating report.

    ``games`` are the player's rated games, each with its expected score; ``expected`` is
    their sum, unrounded. ``expected``, ``k`` and ``change`` are ``None`` for an unrated
    (provisional) player. ``change`` is rounded to one decimal.
    """

    id: PlayerId
    rating: int | None
    games: tuple[ExpectedGame, ...]
    expected: Decimal | None
    k: int | None
    change: Decimal | None

    @property
    def score(self) -> Fraction:
        """The score in the rated games."""
        return sum((game.score for game in self.games), Fraction(0))

    @property
    def new_rating(self) -> Decimal | None:
        """The rating after the event (one decimal); ``None`` for an unrated player."""
        if self.rating is None or self.change is None:
            return None
        return CONTEXT.add(Decimal(self.rating), self.change)

    @property
    def provisional(self) -> bool:
        """True for an unrated player: the line changes no rating."""
        return self.rating is None


class RatingSystem(Protocol):
    """A rating formula: what one event's rated games do to one player's rating."""

    def rate(self, player: Player, games: Sequence[RatedGame]) -> RatingLine:
        """The line of ``player``, whose rated games in the event are ``games``."""
        ...


class FideRating:
    """FIDE's rating rules (the module docstring says which)."""

    K_NEW = 40
    K_BELOW_2400 = 20
    K_FROM_2400 = 10
    NEW_PLAYER_GAMES = 30
    """A player with fewer rated games than this before the event has K 40."""
    HIGH_RATING = 2400
    K_GAMES_LIMIT = 700
    """K × the event's rated games may not exceed this."""

    def k(self, rating: int, rated_games: int, games: int) -> int:
        """The development coefficient of a player rated ``rating`` with ``rated_games``
        rated games before the event and ``games`` in it.

            >>> FIDE.k(2150, 12, 9), FIDE.k(2150, 30, 9), FIDE.k(2400, 200, 9)
            (40, 20, 10)
            >>> FIDE.k(2150, 12, 18)
            38
        """
        if rated_games < self.NEW_PLAYER_GAMES:
            k = self.K_NEW
        elif rating < self.HIGH_RATING:
            k = self.K_BELOW_2400
        else:
            k = self.K_FROM_2400
        if k * games > self.K_GAMES_LIMIT:
            k = self.K_GAMES_LIMIT // games
        return k

    def rate(self, player: Player, games: Sequence[RatedGame]) -> RatingLine:
        rating = player.rating
        if rating is None:
            unrated = tuple(
                ExpectedGame(g.opponent, g.opponent_rating, g.score, None) for g in games
            )
            return RatingLine(player.id, None, unrated, None, None, None)
        expectations = [expected_score(rating, g.opponent_rating) for g in games]
        line = tuple(
            ExpectedGame(g.opponent, g.opponent_rating, g.score, e)
            for g, e in zip(games, expectations, strict=True)
        )
        expected = total(expectations)
        k = self.k(rating, player.rated_games, len(games))
        score = decimal(sum((g.score for g in games), Fraction(0)))
        change = CONTEXT.multiply(Decimal(k), CONTEXT.subtract(score, expected)).quantize(
            CHANGE_PLACES, rounding=ROUND_HALF_UP, context=CONTEXT
        )
        return RatingLine(player.id, rating, line, expected, k, change)


FIDE = FideRating()
"""The default rating system."""


def rating_report(players: Sequence[Player], system: RatingSystem = FIDE) -> list[RatingLine]:
    """Every player's :class:`RatingLine` by ``system``, in the order of ``players``.

    Raises :class:`ValueError` for an input :func:`~apps.ratings.games.rated_games` refuses.
    """
    rated = rated_games(players)
    return [system.rate(player, rated[player.id]) for player in players]
