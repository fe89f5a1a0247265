"""One round of a Swiss group as its page and the API show it (:func:`round_sheet`): the
boards (board number, White and Black with their rating and the points they had before the
round, the result), the pairing-allocated bye, the players not paired in it (withdrawn, or
joined later), the round's start and deadline, and the standings as they were after it.

Nothing is stored: the points before the round and the standings after it are computed by
:func:`~apps.standings.groups.compute_group` from the games (and byes) of the rounds up to
the one before and up to this one, through the same pure tie-break code as the group's
standings, so the standings after the last round are the group's standings. A board's number
is the game's place in its round (the games are written in the pairing's board order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction

from django.db.models import Max

from apps.core.results import Result
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye, SwissRound
from apps.scoring.points import points_text

from .display import figure_text
from .groups import GroupTable, chain, compute_group, table_rows
from .models import FIGURES


@dataclass(frozen=True)
class RoundPlayer:
    """A seat as a round shows it, with the points it had before the round."""

    seat: int
    entrant_id: int
    code: str
    name: str
    nation: str
    rating: int | None
    points: Fraction
    withdrawn: bool = False

    @property
    def points_text(self) -> str:
        return points_text(self.points)

    def entrant(self) -> dict:
        return {"code": self.code, "name": self.name, "nation": self.nation, "rating": self.rating}


@dataclass(frozen=True)
class Board:
    """One game of the round."""

    board: int
    game_id: int
    number: int  # the game's number in the group (its page's address)
    white: RoundPlayer
    black: RoundPlayer
    result: str
    version: int
    adjudicated: bool
    finished_on: date | None

    @property
    def finished(self) -> bool:
        return bool(self.result)

    @property
    def result_text(self) -> str:
        """As a scoresheet writes it: ``1-0``, ``½-½``, a forfeit ``+−``; empty in progress."""
        result = Result(self.result)
        if not result.finished:
            return ""
        if result.forfeit:
            return "".join(result.symbols)
        return str(result.label)

    @property
    def result_label(self) -> str:
        """The result's full label (a forfeit's says who won it)."""
        return str(Result(self.result).label)


@dataclass(frozen=True)
class StandingLine:
    """A player's place after the round."""

    place: str
    position: int
    player: RoundPlayer  # (with the points before the round)
    points: str  # after the round, an exact decimal
    figures: dict[str, str]  # every figure, exact decimals (as the stored standings)
    figure_texts: list[str]  # the chain's tie-breaks after points, as the pages write them
    finished: int
    scheduled: int

    @property
    def points_text(self) -> str:
        return points_text(self.points)


@dataclass
class RoundSheet:
    """A Swiss round: its boards, bye and absences, its dates and the standings after it."""

    group: Group
    number: int
    rounds: int
    """The rounds the stage plays."""
    paired: int
    """The last round paired so far (the current round)."""
    boards: list[Board]
    bye: RoundPlayer | None
    absent: list[RoundPlayer]
    """Seats without a game or the bye: not paired in this round (0 points)."""
    record: SwissRound | None
    """The round's start and deadline (None: not recorded)."""
    keys: list[str]
    """The tie-breaks after points, in the chain's order."""
    standings: list[StandingLine] = field(default_factory=list)
    """In order of place, after this round (provisional while a game of it is open)."""

    @property
    def open_games(self) -> int:
        return sum(1 for b in self.boards if not b.finished)

    @property
    def complete(self) -> bool:
        """Every game of the round has a result."""
        return self.open_games == 0

    @property
    def current(self) -> bool:
        return self.number == self.paired

    @property
    def last(self) -> bool:
        return self.number >= self.rounds

    @property
    def started_at(self) -> datetime | None:
        return self.record.started_at if self.record else None

    @property
    def due_at(self) -> datetime | None:
        return self.record.due_at if self.record else None

    @property
    def round_numbers(self) -> range:
        """The rounds paired so far, for the round navigation."""
        return range(1, self.paired + 1)

    @property
    def later_rounds(self) -> range:
        """The rounds not paired yet."""
        return range(self.paired + 1, self.rounds + 1)


def rounds_paired(group: Group) -> int:
    """The group's last round with a game or a bye (0: none)."""
    last_game = Game.objects.filter(group=group).aggregate(last=Max("round"))["last"] or 0
    last_bye = SwissBye.objects.filter(group=group).aggregate(last=Max("round"))["last"] or 0
    return max(last_game, last_bye)


def round_sheet(group: Group, number: int) -> RoundSheet | None:
    """Round ``number`` of the Swiss ``group`` (whose ``stage`` and tournament are read), or
    None for a round not paired (yet)."""
    paired = rounds_paired(group)
    if not 1 <= number <= paired:
        return None
    stage = group.stage
    seats = {
        s.entrant_id: s
        for s in Seat.objects.filter(group=group).select_related("entrant").order_by("number")
    }
    withdrawn = set(
        StageEntry.objects.filter(
            stage_id=stage.pk, entrant_id__in=list(seats), withdrawn_at__isnull=False
        ).values_list("entrant_id", flat=True)
    )
    before = _points(compute_group(group, through_round=number - 1)) if number > 1 else {}

    def player(entrant_id: int) -> RoundPlayer:
        seat = seats[entrant_id]
        entrant = seat.entrant
        return RoundPlayer(
            seat.number,
            entrant_id,
            entrant.code,
            entrant.name,
            entrant.nation,
            entrant.rating,
            before.get(entrant_id, Fraction(0)),
            entrant_id in withdrawn,
        )

    games = Game.objects.filter(group=group, round=number).order_by("number")
    boards = [
        Board(
            board,
            game.pk,
            game.number,
            player(game.white_id),
            player(game.black_id),
            game.result,
            game.version,
            game.adjudicated,
            game.finished_on,
        )
        for board, game in enumerate(
            games.only(
                "id",
                "number",
                "white_id",
                "black_id",
                "result",
                "version",
                "adjudicated",
                "finished_on",
            ),
            start=1,
        )
    ]
    bye_of = SwissBye.objects.filter(group=group, round=number).values_list("entrant_id", flat=True)
    bye = next((player(e) for e in bye_of), None)
    paired_here = {b.white.entrant_id for b in boards} | {b.black.entrant_id for b in boards}
    if bye is not None:
        paired_here.add(bye.entrant_id)
    absent = [player(e) for e in seats if e not in paired_here]
    keys = [k.value for k in chain(stage.tournament)][1:]
    sheet = RoundSheet(
        group=group,
        number=number,
        rounds=stage.swiss_rounds or 0,
        paired=paired,
        boards=boards,
        bye=bye,
        absent=absent,
        record=SwissRound.objects.filter(group=group, number=number).first(),
        keys=keys,
    )
    after = compute_group(group, through_round=number)
    sheet.standings = []
    for (
        entrant_id,
        _seat,
        position,
        place,
        points,
        finished,
        scheduled,
        _gone,
        values,
    ) in table_rows(after):
        figures = dict(zip(FIGURES, values, strict=True))  # the texts, by figure
        sheet.standings.append(
            StandingLine(
                place,
                position,
                player(entrant_id),
                points,
                figures,
                [figure_text(k, figures.get(k)) for k in keys],
                finished,
                scheduled,
            )
        )
    return sheet


def _points(table: GroupTable) -> dict[int, Fraction]:
    """entrant id → points, from a computed table."""
    points = {}
    for standing in table.standings:
        entrant_id = standing.figures.id
        assert isinstance(entrant_id, int)  # compute_group ranks the entrants by their id
        points[entrant_id] = standing.figures.points
    return points
