"""A group's results as a FIDE TRF (TRF16) file, readable by ``standings_from_trf``.

This module reads the group from the database; :mod:`apps.scoring.trf.write` writes the file
(how games get rounds, what ``XXR`` says).

A Swiss group's players are numbered by pairing number (TPN), the seats in the initial order:
the seats themselves unless late entrants joined (they sit at the end but are paired by their
rating), so that ``swiss_pair`` on the file pairs the next round as the stage does. Names are
written as spreadsheets show them as text (:func:`apps.core.csvfiles.safe_cell`), as in every
download.

Limits, honestly: the file gives every player the same points as the stored standings (a test
checks it) and the same Buchholz figures under the classic convention, but when ``XXR`` is
larger than the games per player, a reader's Torino figures (which use T = ``XXR``) and the
count of games differ from the application's. TRF has no place for a tournament's own points
per result, so the file is read with 1, ½, 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from apps.core.csvfiles import safe_cell
from apps.core.results import Result
from apps.scoring.tiebreaks import Colour
from apps.scoring.trf.write import TrfEntry, TrfGame, TrfSwiss, colour_games, write_trf


def group_trf(group) -> str:
    """The TRF file of a group's current results (four queries)."""
    from apps.groups.models import Game, Seat

    from .groups import stage_games_per_player
    from .models import GroupStanding

    stage = group.stage
    seats = list(Seat.objects.filter(group=group).select_related("entrant"))
    seat_of = {s.entrant_id: s.number for s in seats}
    if stage.is_swiss:
        # Numbered by pairing number (the seats unless a late entrant joined), so that the
        # file pairs the next round as the stage does (apps.silli.swiss_system.pairing_order).
        from apps.silli.swiss_system import pairing_order

        tpn = {
            seat: n for n, seat in enumerate(pairing_order({s.number: s.entrant for s in seats}), 1)
        }
        seat_of = {entrant: tpn[number] for entrant, number in seat_of.items()}
    stored = {
        s.entrant_id: s
        for s in GroupStanding.objects.filter(group=group).only("entrant_id", "points", "place")
    }
    entries = []
    for seat in seats:
        standing = stored.get(seat.entrant_id)
        entries.append(
            TrfEntry(
                seat_of[seat.entrant_id],
                safe_cell(seat.entrant.name),
                seat.entrant.nation,
                seat.entrant.rating,
                standing.points if standing else Decimal(0),
                int(standing.place.split("-")[0]) if standing and standing.place else None,
            )
        )
    games = [
        TrfGame(seat_of[white], seat_of[black], Result(result).trf_codes, round_)
        for white, black, result, round_ in Game.objects.filter(group=group)
        .order_by("number")
        .values_list("white_id", "black_id", "result", "round")
    ]
    title = f"{stage.tournament.name} — {stage.get_kind_display()} — group {group.number}"
    games_per_player = stage_games_per_player(stage, group)
    if stage.is_swiss:
        return write_trf(title, entries, games, games_per_player, swiss=_swiss(group, seat_of))
    if not games or any(g.round is None for g in games):
        games = colour_games(games, group.size)
    return write_trf(title, entries, games, games_per_player)


def _swiss(group, seat_of: Mapping[int, int]) -> TrfSwiss:
    """A Swiss group's rounds, initial colour, byes and, when accelerated, virtual points."""
    from apps.groups.models import SwissBye
    from apps.silli.swiss.acceleration import Acceleration, virtual_points
    from apps.silli.swiss_system import colour_of_rule

    stage = group.stage
    total = stage.swiss_rounds or 0
    method = Acceleration(stage.swiss_acceleration)
    accelerated = method is not Acceleration.NONE and total
    return TrfSwiss(
        total_rounds=total,
        first_colour=Colour[colour_of_rule(group.rule).name],
        byes={
            seat_of[entrant]: number
            for number, entrant in SwissBye.objects.filter(group=group).values_list(
                "round", "entrant_id"
            )
        },
        virtual_points=virtual_points(sorted(seat_of.values()), total, method)
        if accelerated
        else {},
    )
