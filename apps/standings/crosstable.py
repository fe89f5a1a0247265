"""The ICCF-style crosstable of a group, and its CSV exports.

One row per seat: seat, nation, name, rating, the result against each opponent (from this
player's side, with the colour), score, tie-breaks, place, games remaining. Built with a
fixed number of queries whatever the group's size.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.utils import timezone

from apps.core.csvfiles import safe_writer
from apps.core.results import Result
from apps.groups.models import Game, Group, Seat, SwissBye

from .groups import chain
from .models import FIGURES, GroupStanding

LATEST_DAYS = 14


@dataclass(frozen=True)
class Cell:
    """This row's game against one opponent."""

    game_id: int
    opponent_seat: int
    colour: str  # "W" or "B"
    symbol: str  # "1", "½", "0", "+", "−", or "" while in progress
    result: str
    version: int
    adjudicated: bool
    latest: bool
    number: int = 0  # the game's number in the group
    finished_on: date | None = None
    round: int | None = None  # a Swiss or round-robin game's round
    bye: bool = False


@dataclass(frozen=True)
class ByeCell:
    """A Swiss round in which this row had the pairing-allocated bye (a win's points)."""

    round: int
    bye: bool = True


@dataclass
class Row:
    seat: int
    entrant_id: int
    code: str
    name: str
    nation: str
    rating: int | None
    cells: dict[int, Cell] = field(default_factory=dict)  # by opponent seat
    place: str = ""
    points: Decimal = Decimal(0)
    figures: dict[str, str] = field(default_factory=dict)
    finished: int = 0
    scheduled: int = 0
    withdrawn: bool = False
    byes: set[int] = field(default_factory=set)  # Swiss rounds with the bye
    # Every game of this row, in game order (``cells`` keeps one per opponent seat; a double
    # round robin meets each opponent twice): the norm figures read them (rated.py).
    games: list[Cell] = field(default_factory=list)

    @property
    def remaining(self) -> int:
        return self.scheduled - self.finished

    def by_round(self, rounds: int) -> list[Cell | ByeCell | None]:
        """A Swiss row round by round: the game, the bye, or None (not paired)."""
        games = {c.round: c for c in self.cells.values() if c.round is not None}
        return [ByeCell(r) if r in self.byes else games.get(r) for r in range(1, rounds + 1)]


@dataclass
class Crosstable:
    group: Group
    rows: list[Row]  # in seat order
    keys: list[str]  # tie-break figures of the chain after points
    counts: dict[str, int]

    @property
    def rounds_paired(self) -> int:
        """The last round with a game or a bye (a Swiss group's current round)."""
        games = (c.round or 0 for r in self.rows for c in r.cells.values())
        byes = (b for r in self.rows for b in r.byes)
        return max(max(games, default=0), max(byes, default=0))

    def by_place(self) -> list[Row]:
        return sorted(self.rows, key=lambda r: (r.place == "", _place_number(r.place), r.seat))


def _place_number(place: str) -> int:
    return int(place.split("-")[0]) if place else 0


def build(group: Group) -> Crosstable:
    seats = list(Seat.objects.filter(group=group).select_related("entrant").order_by("number"))
    rows = {
        s.entrant_id: Row(
            s.number,
            s.entrant_id,
            s.entrant.code,
            s.entrant.name,
            s.entrant.nation,
            s.entrant.rating,
        )
        for s in seats
    }
    seat_of = {s.entrant_id: s.number for s in seats}
    recent = timezone.now() - timedelta(days=LATEST_DAYS)
    counts = {"games": 0, "finished": 0, "in_progress": 0, "forfeits": 0, "adjudicated": 0}
    for game in Game.objects.filter(group=group).only(
        "id",
        "number",
        "white_id",
        "black_id",
        "result",
        "version",
        "adjudicated",
        "updated_at",
        "finished_on",
        "round",
    ):
        counts["games"] += 1
        result = Result(game.result)
        if result.finished:
            counts["finished"] += 1
            counts["forfeits"] += result.forfeit
            counts["adjudicated"] += game.adjudicated
        else:
            counts["in_progress"] += 1
        white_symbol, black_symbol = result.symbols
        latest = bool(game.result and game.updated_at and game.updated_at >= recent)
        for me, other, colour, symbol in (
            (game.white_id, game.black_id, "W", white_symbol),
            (game.black_id, game.white_id, "B", black_symbol),
        ):
            row = rows[me]
            row.scheduled += 1
            row.finished += bool(game.result)
            row.cells[seat_of[other]] = cell = Cell(
                game.pk,
                seat_of[other],
                colour,
                symbol,
                game.result,
                game.version,
                game.adjudicated,
                latest,
                game.number,
                game.finished_on,
                game.round,
            )
            row.games.append(cell)
    if group.stage.is_swiss:
        for number, entrant in SwissBye.objects.filter(group=group).values_list(
            "round", "entrant_id"
        ):
            row = rows[entrant]
            row.byes.add(number)
            row.scheduled += 1
            row.finished += 1
    for standing in GroupStanding.objects.filter(group=group):
        row = rows[standing.entrant_id]
        row.place, row.points, row.figures = standing.place, standing.points, standing.figures
        row.withdrawn = standing.withdrawn
    keys = [k.value for k in chain(group.stage.tournament)][1:]
    return Crosstable(group, list(rows.values()), keys, counts)


def crosstable_csv(table: Crosstable) -> str:
    """seat, nation, name, rating, one column per seat, score, figures, place, remaining."""
    out = io.StringIO()
    writer = safe_writer(out)
    n = len(table.rows)
    writer.writerow(
        [
            "seat",
            "code",
            "nation",
            "name",
            "rating",
            *range(1, n + 1),
            "points",
            *FIGURES[1:],
            "place",
            "remaining",
        ]
    )
    for row in table.rows:
        cells = [
            (row.cells[s].symbol or "·") if s in row.cells else ("x" if s == row.seat else "")
            for s in range(1, n + 1)
        ]
        writer.writerow(
            [
                row.seat,
                row.code,
                row.nation,
                row.name,
                row.rating or "",
                *cells,
                row.points,
                *(row.figures.get(f, "") for f in FIGURES[1:]),
                row.place,
                row.remaining,
            ]
        )
    return out.getvalue()


def standings_csv(table: Crosstable) -> str:
    """The group's standings: place, seat, entrant, points and every figure."""
    out = io.StringIO()
    writer = safe_writer(out)
    writer.writerow(
        [
            "place",
            "seat",
            "code",
            "name",
            "nation",
            "rating",
            "points",
            *FIGURES[1:],
            "finished",
            "scheduled",
            "withdrawn",
        ]
    )
    for row in table.by_place():
        writer.writerow(
            [
                row.place,
                row.seat,
                row.code,
                row.name,
                row.nation,
                row.rating or "",
                row.points,
                *(row.figures.get(f, "") for f in FIGURES[1:]),
                row.finished,
                row.scheduled,
                int(row.withdrawn),
            ]
        )
    return out.getvalue()
