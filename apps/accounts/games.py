""" "My games": everything a signed-in player needs about each of their entries.

For every stage an entry of theirs is in: the group and seat (once the stage is published),
the opponents with colours, results and contact addresses (a player may see their own
opponents'), the TD and their contact, the standing (place and points, as stored by
``apps.standings``), the qualification status, and the results reported for open games
(with the buttons to answer them). Seven queries, however many entries; eight when one is
in a Swiss stage, whose games are listed by round with the player's bye among them and the
rounds paired so far ("Round 3 of 7").
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import OuterRef, Q, Subquery
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from apps.core import people
from apps.core.permissions import Actor, signed_in
from apps.core.results import Result
from apps.entrants.models import Entrant, StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.groups.services import GAME_ROW, seat_lines
from apps.results.models import ResultReport
from apps.scoring.points import points_text
from apps.stages.models import Stage, Tournament
from apps.stages.permissions import public_stages_filter
from apps.standings.models import GroupStanding

STATUS_LABELS = {
    "registered": _("waiting for the draw"),
    "in_play": _("in play"),
    "qualified": _("qualified"),
    "not_qualified": _("not qualified"),
    "finished": _("finished"),
    "withdrawn": _("withdrawn"),
}
ADVANCING = (StageEntry.Source.QUALIFIED, StageEntry.Source.PREQUALIFIED)


@dataclass(frozen=True)
class MyGame:
    id: int
    number: int  # in the group
    colour: str  # "W" or "B": the player's colour
    opponent: Entrant
    opponent_seat: int
    result: str  # the game's result code, "" while in progress
    score: str  # from the player's side: "1", "½", "0", "+", "−" or ""
    finished_on: date | None = None
    # The open game's report awaiting an answer or the TD (None: nothing reported).
    report: ResultReport | None = None
    round: int | None = None  # a Swiss's (or a round robin's) round

    bye = False  # see MyBye
    absent = False  # see MyAbsence

    @property
    def reported_by_me(self) -> bool:
        return self.report is not None and self.report.reporter_side == self.colour_name

    @property
    def awaits_my_answer(self) -> bool:
        return (
            self.report is not None
            and self.report.status == ResultReport.Status.PENDING
            and not self.reported_by_me
        )

    @property
    def colour_name(self) -> str:
        return "white" if self.colour == "W" else "black"

    @property
    def contact(self) -> str:
        return self.opponent.email


@dataclass(frozen=True)
class MyBye:
    """A Swiss round in which the player had the pairing-allocated bye: a win's points."""

    round: int
    points: Decimal

    bye = True
    absent = False

    @property
    def text(self) -> str:
        whole = self.points == self.points.to_integral_value()
        return ngettext(
            "bye — %(points)s point", "bye — %(points)s points", int(self.points) if whole else 2
        ) % {"points": points_text(self.points)}


@dataclass(frozen=True)
class MyAbsence:
    """A Swiss round the player was not paired in: 0 points (a late entrant's rounds before
    they joined, a withdrawn player's after they left)."""

    round: int

    bye = False
    absent = True

    @property
    def text(self) -> str:
        return gettext("not paired in this round — no points")


@dataclass
class MyStage:
    """One entry in one stage."""

    entrant: Entrant
    stage: Stage
    status: str
    group: Group | None = None
    seat: int | None = None
    games: list[MyGame] = field(default_factory=list)
    place: str = ""
    points: Decimal | None = None
    # A Swiss stage: the round of the player's bye (None: no bye) and the last round paired.
    bye_round: int | None = None
    paired: int = 0

    @property
    def is_swiss(self) -> bool:
        return self.stage.is_swiss

    @property
    def rows(self) -> list[MyGame | MyBye | MyAbsence]:
        """The lines of the games table: the games, a Swiss's by round with the bye and the
        rounds paired without the player."""
        if not self.is_swiss:
            return list(self.games)
        games = sorted(self.games, key=lambda g: (g.round or 0, g.number))
        rows: list[MyGame | MyBye | MyAbsence] = list(games)
        if self.bye_round is not None:
            rows.append(MyBye(self.bye_round, self.tournament.points_win))
        known = {row.round for row in rows}
        rows += [MyAbsence(r) for r in range(1, self.paired + 1) if r not in known]
        rows.sort(key=lambda row: row.round or 0)  # stable: games keep their order
        return rows

    @property
    def rounds_text(self) -> str:
        """A Swiss's progress: "Round 3 of 7" (empty for other stages)."""
        if not self.is_swiss or not self.group:
            return ""
        return gettext("Round %(paired)s of %(rounds)s") % {
            "paired": self.paired,
            "rounds": self.stage.swiss_rounds or 0,
        }

    @property
    def tournament(self) -> Tournament:
        return self.stage.tournament

    @property
    def status_label(self) -> str:
        return str(STATUS_LABELS[self.status])

    @property
    def points_text(self) -> str:
        return points_text(self.points) if self.points is not None else ""

    @property
    def td_name(self) -> str:
        td = self.group.td if self.group else None
        return people.td_name(td) if td else ""

    @property
    def td_contact(self) -> str:
        return self.group.td.email if self.group and self.group.td else ""


def _status(entry: StageEntry, seated: bool, advanced: set[int]) -> str:
    stage = entry.stage
    if entry.withdrawn_at is not None:
        return "withdrawn"
    if any(order > stage.order for order in advanced):
        return "qualified"
    if not seated:
        return "registered"
    if stage.status == Stage.Status.CLOSED:
        return "finished" if stage.kind == Stage.Kind.FINAL else "not_qualified"
    return "in_play"


def _swiss_rounds(seats: list[Seat]) -> dict[int, tuple[int | None, int]]:
    """Seat id → (the round of its bye or None, the last round its group paired), for seats
    of Swiss stages (one query; none without such seats)."""
    if not seats:
        return {}
    group = OuterRef("group_id")
    last_game = Game.objects.filter(group_id=group, round__isnull=False).order_by("-round")
    last_bye = SwissBye.objects.filter(group_id=group).order_by("-round")
    own_bye = SwissBye.objects.filter(group_id=group, entrant_id=OuterRef("entrant_id"))
    rows = (
        Seat.objects.filter(pk__in=[s.pk for s in seats])
        .annotate(
            bye=Subquery(own_bye.values("round")[:1]),
            last_game=Subquery(last_game.values("round")[:1]),
            last_bye=Subquery(last_bye.values("round")[:1]),
        )
        .values_list("pk", "bye", "last_game", "last_bye")
    )
    return {pk: (bye, max(game or 0, last or 0)) for pk, bye, game, last in rows}


def my_stages(user: Actor) -> list[MyStage]:
    """Every stage of every entry linked to ``user``, by tournament, entry and stage."""
    if not signed_in(user):
        return []
    entries = list(
        StageEntry.objects.filter(entrant__user=user)
        .select_related("entrant", "stage__tournament")
        .order_by("stage__tournament__name", "entrant__code", "stage__order")
    )
    if not entries:
        return []
    entrant_ids = {e.entrant_id for e in entries}
    advanced: dict[int, set[int]] = defaultdict(set)
    for entrant_id, order in StageEntry.objects.filter(
        entrant_id__in=entrant_ids, source__in=ADVANCING
    ).values_list("entrant_id", "stage__order"):
        advanced[entrant_id].add(order)
    seats = list(
        Seat.objects.filter(
            public_stages_filter("stage__"), entrant_id__in=entrant_ids
        ).select_related("entrant", "group__td__profile")
    )
    group_ids = {s.group_id for s in seats}
    # The players' games, once for the start-list lines and the results both.
    rows = list(
        Game.objects.filter(group_id__in=group_ids)
        .filter(Q(white_id__in=entrant_ids) | Q(black_id__in=entrant_ids))
        .values_list(*GAME_ROW, "pk", "result", "finished_on")
    )
    partners = {row[3] for row in rows} | {row[4] for row in rows}
    opponents = Seat.objects.filter(group_id__in=group_ids, entrant_id__in=partners)
    by_entrant = {(s.group_id, s.entrant_id): s for s in opponents.select_related("entrant")}
    lines = {
        (ln.seat.stage_id, ln.seat.entrant_id): ln
        for ln in seat_lines(seats, [row[:5] for row in rows], by_entrant)
    }
    results = {(row[0], row[1]): row[5:] for row in rows}
    stages = {e.stage_id: e.stage for e in entries}
    swiss = _swiss_rounds(
        [s for s in seats if s.stage_id in stages and stages[s.stage_id].is_swiss]
    )
    open_ids = [pk for pk, result, _on in results.values() if not result]
    reports = {
        r.game_id: r
        for r in ResultReport.objects.filter(
            game_id__in=open_ids,
            status__in=(ResultReport.Status.PENDING, ResultReport.Status.DISPUTED),
        ).order_by("created_at", "pk")
    }
    standings = {
        (group_id, entrant_id): (place, points)
        for group_id, entrant_id, place, points in GroupStanding.objects.filter(
            group_id__in=group_ids, entrant_id__in=entrant_ids
        ).values_list("group_id", "entrant_id", "place", "points")
    }
    cards = []
    for entry in entries:
        line = lines.get((entry.stage_id, entry.entrant_id))
        card = MyStage(
            entry.entrant,
            entry.stage,
            _status(entry, line is not None, advanced[entry.entrant_id]),
        )
        if line is not None:
            group = line.seat.group
            card.group, card.seat = group, line.seat.number
            for o in line.opponents:
                pk, result, finished_on = results[(group.pk, o.game)]
                white, black = Result(result).symbols
                score = white if o.colour == "W" else black
                card.games.append(
                    MyGame(
                        pk,
                        o.game,
                        o.colour,
                        o.entrant,
                        o.seat,
                        result,
                        score,
                        finished_on,
                        reports.get(pk),
                        o.round,
                    )
                )
            card.bye_round, card.paired = swiss.get(line.seat.pk, (None, 0))
            card.place, card.points = standings.get((group.pk, entry.entrant_id), ("", None))
        cards.append(card)
    return cards
