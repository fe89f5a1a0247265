"""A group's players and games as the pure ``apps.ratings`` package reads them, and the
title-norm figures of a group (docs/ratings.md).

Any group works the same way — a Silli group, a round robin, a Swiss stage's group: each seat
is a :class:`~apps.ratings.games.Player` (its id the seat number, its rating the entrant's
``rating`` before the event, ``None`` when unrated), each finished game gives both players a
:class:`~apps.ratings.games.Game` (a forfeit or a double forfeit is not *played*, so it is not
rated), and games in progress and Swiss byes give nothing. The rated games a player had
before the event (FIDE's K) are not stored with entrants: the caller gives them by person
(``apps.ratinglists`` takes them from the rating list the stage used), else every player
gets :data:`DEFAULT_RATED_GAMES`.

The crosstable's norm figures come from :func:`group_norm_figures`, computed here from the
entrants' ratings and the games, so that the crosstable (this app) needs nothing from the
floors above it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from apps.core.results import Result, SideOutcome
from apps.groups.models import Game, Group, Seat
from apps.ratings.games import Game as RatingGame
from apps.ratings.games import Player
from apps.ratings.norms import NORM_LEVELS, UNOFFICIAL, NormFigure, NormLevel, norm_figures

from .crosstable import Crosstable

DEFAULT_RATED_GAMES = 30
"""The rated games before the event of a player the caller knows nothing about: 30, so that
K goes by the rating (20 below 2400, 10 from 2400) rather than 40 for a newcomer."""

SCORE = {
    SideOutcome.WIN: Fraction(1),
    SideOutcome.DRAW: Fraction(1, 2),
    SideOutcome.LOSS: Fraction(0),
}

__all__ = ["DEFAULT_RATED_GAMES", "UNOFFICIAL", "GroupPlayer", "NormRow", "group_players"]


@dataclass(frozen=True)
class GroupPlayer:
    """Who a player of a group is (for pages, CSV and the API) and their rating input."""

    group_id: int
    group_number: int
    seat: int
    entrant_id: int
    code: str
    name: str
    nation: str
    person: str
    player: Player

    @property
    def rating(self) -> int | None:
        return self.player.rating


def group_players(
    group: Group,
    rated_games: Mapping[str, int] | None = None,
    *,
    default_rated_games: int = DEFAULT_RATED_GAMES,
) -> list[GroupPlayer]:
    """The group's players in seat order, each with their finished games (two queries).

    ``rated_games`` maps a person (``Entrant.person``) to the rated games they had played
    before the event; a person it does not name gets ``default_rated_games``.
    """
    known = rated_games or {}
    seats = list(
        Seat.objects.filter(group=group)
        .order_by("number")
        .values_list(
            "number",
            "entrant_id",
            "entrant__code",
            "entrant__name",
            "entrant__nation",
            "entrant__person",
            "entrant__rating",
        )
    )
    seat_of = {entrant: number for number, entrant, *_rest in seats}
    games: dict[int, list[RatingGame]] = {number: [] for number, *_rest in seats}
    rows = (
        Game.objects.filter(group=group)
        .exclude(result="")
        .order_by("number")
        .values_list("white_id", "black_id", "result")
    )
    for white, black, code in rows:
        result = Result(code)
        white_outcome, black_outcome = result.outcomes
        played = result.played
        white_seat, black_seat = seat_of[white], seat_of[black]
        games[white_seat].append(RatingGame(black_seat, SCORE[white_outcome], played))
        games[black_seat].append(RatingGame(white_seat, SCORE[black_outcome], played))
    return [
        GroupPlayer(
            group_id=group.pk,
            group_number=group.number,
            seat=number,
            entrant_id=entrant,
            code=code,
            name=name,
            nation=nation,
            person=person,
            player=Player(
                number,
                rating,
                known.get(person, default_rated_games),
                tuple(games[number]),
            ),
        )
        for number, entrant, code, name, nation, person, rating in seats
    ]


def crosstable_players(table: Crosstable) -> list[GroupPlayer]:
    """The players of a crosstable already built (no query: the crosstable page's norm
    figures), as :func:`group_players` reads them but for ``person`` (left empty) and the
    rated games before the event (:data:`DEFAULT_RATED_GAMES`)."""
    players = []
    for row in table.rows:
        games = []
        for cell in row.games:
            if not cell.result:
                continue
            result = Result(cell.result)
            outcome = result.outcome("white" if cell.colour == "W" else "black")
            games.append(RatingGame(cell.opponent_seat, SCORE[outcome], result.played))
        players.append(
            GroupPlayer(
                group_id=table.group.pk,
                group_number=table.group.number,
                seat=row.seat,
                entrant_id=row.entrant_id,
                code=row.code,
                name=row.name,
                nation=row.nation,
                person="",
                player=Player(row.seat, row.rating, DEFAULT_RATED_GAMES, tuple(games)),
            )
        )
    return players


@dataclass(frozen=True)
class NormRow:
    """One player's norm figures at each level asked for, by level code."""

    who: GroupPlayer
    figures: dict[str, NormFigure] = field(default_factory=dict)

    def achieved(self) -> list[str]:
        """The codes of the levels whose norm the player has."""
        return [code for code, figure in self.figures.items() if figure.achieved]


def levels_named(codes: Iterable[str] | None) -> list[NormLevel]:
    """The norm levels of ``codes`` (every level, highest first, when None); an unknown code
    raises :class:`KeyError`."""
    if codes is None:
        return list(NORM_LEVELS.values())
    return [NORM_LEVELS[code] for code in codes]


def group_norm_figures(
    group: Group,
    levels: Sequence[NormLevel] | None = None,
    players: Sequence[GroupPlayer] | None = None,
) -> list[NormRow]:
    """Every player's norm figures at ``levels`` (default every level), in seat order."""
    if players is None:
        players = group_players(group)
    rows = [NormRow(p) for p in players]
    inputs = [p.player for p in players]
    for level in levels if levels is not None else levels_named(None):
        for row, figure in zip(rows, norm_figures(inputs, level), strict=True):
            row.figures[level.code] = figure
    return rows
