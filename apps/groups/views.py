"""Start lists: a group's seats with every seat's opponents and colours, and finding a player.

Opponents come from the group's games, loaded in one query per page (never one per seat).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.core.permissions import public_stages_filter
from apps.entrants.models import Entrant
from apps.results.models import Game
from apps.stages.models import Tournament
from apps.stages.views import group_rows, visible_stage

from .models import Group, Seat

FIND_LIMIT = 50


@dataclass(frozen=True)
class Opponent:
    colour: str  # "W" when the player has White, "B" when Black
    seat: int
    entrant: Entrant
    order: tuple[int, int]


@dataclass(frozen=True)
class SeatLine:
    """A seat of a start list with its opponents, White games first (in formula order)."""

    seat: Seat
    opponents: list[Opponent]

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
            found[(group_id, me)].append(Opponent(colour, them.number, them.entrant, key))
    return [
        SeatLine(
            seat,
            sorted(
                found[(seat.group_id, seat.entrant_id)], key=lambda o: (o.colour != "W", o.order)
            ),
        )
        for seat in seats
    ]


def group(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    the_group = get_object_or_404(Group.objects.select_related("td"), stage=stage, number=number)
    the_group.stage = stage
    seats = list(the_group.seats.select_related("entrant").order_by("number"))
    for seat in seats:
        seat.group = the_group
    games = Game.objects.filter(group=the_group).values_list(
        "group_id", "number", "round", "white_id", "black_id"
    )
    lines = seat_lines(seats, games, {(s.group_id, s.entrant_id): s for s in seats})
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": the_group,
        "row": group_rows([the_group])[0],
        "lines": lines,
    }
    return render(request, "groups/group.html", context)


def find_player(request: HttpRequest, slug: str) -> HttpResponse:
    """Entrants placed in the tournament's published stages, by name (contains) or exact code."""
    cup = get_object_or_404(Tournament, slug=slug)
    query = request.GET.get("q", "").strip()
    found: list[Seat] = []
    if query:
        found = list(
            Seat.objects.filter(public_stages_filter("stage__"), stage__tournament=cup)
            .filter(Q(entrant__name__icontains=query) | Q(entrant__code__iexact=query))
            .select_related("entrant", "group", "stage")
            .order_by("stage__order", "entrant__name", "entrant__code")[: FIND_LIMIT + 1]
        )
    return render(
        request,
        "groups/find_player.html",
        {
            "tournament": cup,
            "query": query,
            "lines": _opponents_of(found[:FIND_LIMIT]),
            "more": len(found) > FIND_LIMIT,
            "limit": FIND_LIMIT,
        },
    )


def _opponents_of(seats: list[Seat]) -> list[SeatLine]:
    if not seats:
        return []
    group_ids = {s.group_id for s in seats}
    ids = {s.entrant_id for s in seats}
    games = list(
        Game.objects.filter(group_id__in=group_ids)
        .filter(Q(white_id__in=ids) | Q(black_id__in=ids))
        .values_list("group_id", "number", "round", "white_id", "black_id")
    )
    partners = {w for _, _, _, w, _ in games} | {b for _, _, _, _, b in games}
    opponents = Seat.objects.filter(group_id__in=group_ids, entrant_id__in=partners)
    by_entrant = {(s.group_id, s.entrant_id): s for s in opponents.select_related("entrant")}
    return seat_lines(seats, games, by_entrant)
