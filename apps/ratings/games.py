"""The input of a rating report and of norm figures, and which of its games are rated.

A group (a Silli group, a round robin, a Swiss stage) is a list of :class:`Player`, each
with their rating before the event (``None``: unrated), the number of rated games they had
played before it (FIDE's K depends on it) and their :class:`Game` records. A game is
*rated* when it was played (:attr:`Game.played`) against an opponent who has a rating;
:func:`rated_games` picks those games for every player. An unrated player's own games
against rated opponents are rated games of theirs (they are the input of their provisional
line), but not of their opponents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

PlayerId: TypeAlias = int | str
"""A player's id within one group (a seat number, a start rank, an entrant code)."""

SCORES = (Fraction(0), Fraction(1, 2), Fraction(1))
"""The scores a played game can give one player: a loss, a draw, a win."""


@dataclass(frozen=True, slots=True)
class Game:
    """One game from one player's side.

    ``opponent`` is ``None`` for a round without one (a bye); ``score`` is 1, ½ or 0 from
    this player's side. ``played`` is True for a game really played (not forfeited) and
    to be rated; False for a forfeit, a bye, or a game the arbiter declared not rated.
    """

    opponent: PlayerId | None
    score: Fraction
    played: bool = True


@dataclass(frozen=True, slots=True)
class Player:
    """A player of one group: ``rating`` before the event (``None``: unrated), the rated
    games they had played before it (``rated_games``, for FIDE's K) and their games."""

    id: PlayerId
    rating: int | None
    rated_games: int
    games: tuple[Game, ...]


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A rated game as a rating formula sees it: the opponent, their rating, the score."""

    opponent: PlayerId
    opponent_rating: int
    score: Fraction


def rated_games(players: Sequence[Player]) -> dict[PlayerId, tuple[RatedGame, ...]]:
    """Each player's rated games (played, against a rated opponent), in the order given.

    Raises :class:`ValueError` for two players with the same id, an opponent who is not
    among ``players``, or a played game whose score is not 0, ½ or 1.
    """
    ratings: Mapping[PlayerId, int | None] = {p.id: p.rating for p in players}
    if len(ratings) != len(players):
        raise ValueError("two players have the same id")
    rated: dict[PlayerId, tuple[RatedGame, ...]] = {}
    for player in players:
        games = []
        for game in player.games:
            if game.opponent is not None and game.opponent not in ratings:
                raise ValueError(f"player {player.id}: opponent {game.opponent} is not a player")
            if not game.played or game.opponent is None:
                continue
            if game.score not in SCORES:
                raise ValueError(f"player {player.id}: a played game scores {game.score}")
            opponent_rating = ratings[game.opponent]
            if opponent_rating is not None:
                games.append(RatedGame(game.opponent, opponent_rating, game.score))
        rated[player.id] = tuple(games)
    return rated
