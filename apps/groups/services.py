"""Start lists: every seat's opponents with colours, from the group's games.

Opponents come from the games in one query, however many seats are asked for. In a closed
circle seat x plays White against x + d and Black against x − d, so opponents are listed
White games first, each in formula order; round robins list them by round. A Swiss group's
start list reads its pairing-allocated byes too (one more query) and lists each seat's rounds
in order, the bye among them (:attr:`SeatLine.by_round`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Count, Q

from apps.core.audit import Action, record
from apps.core.permissions import Actor, require_organizer
from apps.entrants.models import Entrant
from apps.groups.models import Game

from .models import Group, Seat, SwissBye

if TYPE_CHECKING:
    from django.contrib.auth.models import User

GAME_ROW = ("group_id", "number", "round", "white_id", "black_id")


@dataclass(frozen=True)
class Opponent:
    colour: str  # "W" when the player has White, "B" when Black
    seat: int
    entrant: Entrant
    game: int  # the game's number in its group
    order: tuple[int, int]
    round: int | None = None  # a round robin's or a Swiss's round (None in a closed circle)

    @property
    def colour_name(self) -> str:
        return "white" if self.colour == "W" else "black"


@dataclass(frozen=True)
class SwissRound:
    """One round of a Swiss seat: its game's opponent, or None for the bye (or, ``absent``,
    a round the seat was not paired in: a late entrant's rounds before they joined, a
    withdrawn player's after they left; 0 points)."""

    number: int
    opponent: Opponent | None
    absent: bool = False

    @property
    def bye(self) -> bool:
        return self.opponent is None and not self.absent


@dataclass(frozen=True)
class SeatLine:
    """A seat of a start list with its opponents, White games first (in formula order)."""

    seat: Seat
    opponents: list[Opponent]
    byes: tuple[int, ...] = ()
    """The Swiss rounds in which this seat had the pairing-allocated bye (a win's points)."""
    paired: int = 0
    """A Swiss group's rounds paired so far (0: not known): the rounds up to it without a
    game or a bye are listed as not paired."""

    @property
    def by_round(self) -> list[SwissRound]:
        """The seat's rounds in order, the byes and the rounds not paired among them (a Swiss
        group's start list)."""
        rounds = [SwissRound(o.round, o) for o in self.opponents if o.round is not None]
        rounds += [SwissRound(number, None) for number in self.byes]
        known = {r.number for r in rounds}
        rounds += [
            SwissRound(number, None, absent=True)
            for number in range(1, self.paired + 1)
            if number not in known
        ]
        return sorted(rounds, key=lambda r: r.number)

    @property
    def as_white(self) -> list[Opponent]:
        return [o for o in self.opponents if o.colour == "W"]

    @property
    def as_black(self) -> list[Opponent]:
        return [o for o in self.opponents if o.colour == "B"]


def seat_lines(
    seats: Iterable[Seat], games: Iterable[tuple], seats_by_entrant: dict[tuple[int, int], Seat]
) -> list[SeatLine]:
    """One :class:`SeatLine` per seat of ``seats``.

    ``games`` are ``(group_id, number, round, white_id, black_id)`` rows; ``seats_by_entrant``
    maps ``(group_id, entrant_id)`` to the Seat (with its entrant) of every opponent.
    In a closed circle seat x plays White against x + d and Black against x − d, so sorting by
    that distance lists the opponents in formula order; round robins sort by round.
    """
    seats = list(seats)
    mine = {(s.group_id, s.entrant_id): s for s in seats}
    found: dict[tuple[int, int], list[Opponent]] = defaultdict(list)
    for group_id, number, round_, white_id, black_id in games:
        for me, other, colour in ((white_id, black_id, "W"), (black_id, white_id, "B")):
            seat = mine.get((group_id, me))
            if seat is None:
                continue
            them = seats_by_entrant[(group_id, other)]
            size = seat.group.size
            distance = (them.number - seat.number) % size
            if colour == "B":
                distance = (seat.number - them.number) % size
            key = (round_, number) if round_ is not None else (distance, number)
            found[(group_id, me)].append(
                Opponent(colour, them.number, them.entrant, number, key, round_)
            )
    return [
        SeatLine(
            seat,
            sorted(
                found[(seat.group_id, seat.entrant_id)], key=lambda o: (o.colour != "W", o.order)
            ),
        )
        for seat in seats
    ]


def group_lines(group: Group, *, byes: bool | None = None) -> list[SeatLine]:
    """Every seat of a group with its opponents (two queries), and with ``byes`` its Swiss
    byes (a third). By default the byes are read when the group's stage is loaded and Swiss
    (as the group page and the start-list e-mails load it)."""
    seats = list(group.seats.select_related("entrant").order_by("number"))
    for seat in seats:
        seat.group = group
    games = list(Game.objects.filter(group=group).values_list(*GAME_ROW))
    lines = seat_lines(seats, games, {(s.group_id, s.entrant_id): s for s in seats})
    if byes is None:
        byes = Group.stage.is_cached(group) and group.stage.is_swiss
    if not byes:
        return lines
    by_entrant: dict[int, list[int]] = defaultdict(list)
    paired = max((row[2] or 0 for row in games), default=0)
    for entrant_id, number in (
        SwissBye.objects.filter(group=group).order_by("round").values_list("entrant_id", "round")
    ):
        by_entrant[entrant_id].append(number)
        paired = max(paired, number)
    return [
        replace(line, byes=tuple(by_entrant.get(line.seat.entrant_id, ())), paired=paired)
        for line in lines
    ]


def lines_for_seats(seats: list[Seat]) -> list[SeatLine]:
    """The given seats (with ``group`` loaded) and their opponents (three queries)."""
    if not seats:
        return []
    group_ids = {s.group_id for s in seats}
    ids = {s.entrant_id for s in seats}
    games = list(
        Game.objects.filter(group_id__in=group_ids)
        .filter(Q(white_id__in=ids) | Q(black_id__in=ids))
        .values_list(*GAME_ROW)
    )
    partners = {w for _, _, _, w, _ in games} | {b for _, _, _, _, b in games}
    opponents = Seat.objects.filter(group_id__in=group_ids, entrant_id__in=partners)
    by_entrant = {(s.group_id, s.entrant_id): s for s in opponents.select_related("entrant")}
    return seat_lines(seats, games, by_entrant)


def player_search(query: str) -> Q:
    """The filter on seats behind "find a player" (the page and ``/api/players/``): the
    entrant's name contains ``query``, or their code is ``query``, both ignoring case.

    On PostgreSQL Django writes these as ``UPPER(name::text) LIKE UPPER('%q%')`` and
    ``UPPER(code::text) = UPPER('q')``: exactly the expressions that the indexes of
    ``apps/entrants/migrations/0003_search_indexes.py`` cover (trigrams of the upper-case
    name, the upper-case code), so the planner reads only the matching entrants (a BitmapOr)
    instead of every one. Another lookup here (``iexact`` on the name, ``contains`` …) would
    need indexes of its own.
    """
    return Q(entrant__name__icontains=query) | Q(entrant__code__iexact=query)


def forfeit_counts(group_ids: Iterable[int]) -> dict[tuple[int, str], int]:
    """How many games a withdrawal forfeited, by (group id, withdrawn entrant's code): the
    games marked ``forfeited_by`` in the given groups (one query)."""
    rows = (
        Game.objects.filter(group_id__in=list(group_ids), forfeited_by__isnull=False)
        .values_list("group_id", "forfeited_by__code")
        .annotate(count=Count("pk"))
        .order_by()
    )
    return {(group_id, code): count for group_id, code, count in rows}


def assign_td(user: Actor, group: Group, td_user: User | None) -> Group:
    """Make ``td_user`` the group's tournament director (``None`` removes the TD).

    Organizers only; one transaction with its audit event ``group.td_assigned``.
    """
    with transaction.atomic():
        group = (
            Group.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage__tournament", "td")
            .get(pk=group.pk)
        )
        require_organizer(user, group.stage.tournament)
        old = group.td.get_username() if group.td else ""
        group.td = td_user
        group.save(update_fields=["td"])
        record(
            Action.GROUP_TD_ASSIGNED,
            user,
            stage=group.stage,
            group=group,
            old=old,
            new=td_user.get_username() if td_user else "",
        )
    return group
