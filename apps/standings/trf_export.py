"""A group's results as a FIDE TRF file (TRF-2026 columns), readable by ``standings_from_trf``.

This module reads the group from the database; :mod:`apps.scoring.trf.write` writes the file
(how games get rounds, what ``XXR`` says).

A Swiss group's players are numbered by pairing number (TPN), the seats in the initial order:
the seats themselves unless late entrants joined (they sit at the end but are paired by their
rating), so that ``swiss_pair`` on the file pairs the next round as the stage does. Names are
written as spreadsheets show them as text (:func:`apps.core.csvfiles.safe_cell`), as in every
download.

A Swiss group's file is the state a pairing program pairs from (:func:`_swiss`): the round in
play left out while it holds up the next round, the points those of the rounds written (1, ½,
0, the bye 1: what bbpPairings checks them against), the place the stored standings' (the
TRF-2026 rank may be shared), and the acceleration of each round as it was applied. Files the
official bbpPairings accepted and what it paired from them: tests/data/bbp/.

Limits, honestly: outside a Swiss the file gives every player the same points as the stored
standings (a test checks it) and the same Buchholz figures under the classic convention; an
unfinished game is written with its opponent and colour and a blank result, which the
project's readers leave out and TRF-2026 readers may refuse (TRF-2026 has no code for it). When
``XXR`` is
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
    """The TRF file of a group's current results (a few queries)."""
    from apps.groups.models import Game, Seat

    from .groups import stage_games_per_player
    from .models import GroupStanding

    stage = group.stage
    seats = list(Seat.objects.filter(group=group).select_related("entrant"))
    seat_of = {s.entrant_id: s.number for s in seats}
    order = [s.number for s in sorted(seats, key=lambda s: s.number)]
    if stage.is_swiss:
        # Numbered by pairing number (the seats unless a late entrant joined), so that the
        # file pairs the next round as the stage does (apps.silli.swiss_system.pairing_order).
        from apps.silli.swiss_system import pairing_order

        order = pairing_order({s.number: s.entrant for s in seats})
        tpn = {seat: n for n, seat in enumerate(order, 1)}
        seat_of = {entrant: tpn[number] for entrant, number in seat_of.items()}
    stored = {
        s.entrant_id: s
        for s in GroupStanding.objects.filter(group=group).only("entrant_id", "points", "place")
    }
    rows = list(
        Game.objects.filter(group=group)
        .order_by("number")
        .values_list("white_id", "black_id", "result", "round")
    )
    title = f"{stage.tournament.name} — {stage.get_kind_display()} — group {group.number}"
    games_per_player = stage_games_per_player(stage, group)
    swiss = notes = None
    if stage.is_swiss:
        swiss, rows, notes = _swiss(group, seat_of, order, rows)
    games = [
        TrfGame(seat_of[white], seat_of[black], Result(result).trf_codes, round_)
        for white, black, result, round_ in rows
    ]
    points = _written_points(games, swiss) if swiss else {}
    entries = []
    for seat in seats:
        standing = stored.get(seat.entrant_id)
        number = seat_of[seat.entrant_id]
        entries.append(
            TrfEntry(
                number,
                safe_cell(seat.entrant.name),
                seat.entrant.nation,
                seat.entrant.rating,
                points.get(number, Decimal(0))
                if swiss
                else (standing.points if standing else Decimal(0)),
                int(standing.place.split("-")[0]) if standing and standing.place else None,
            )
        )
    if swiss is not None:
        return write_trf(title, entries, games, games_per_player, swiss=swiss, notes=notes or ())
    if not games or any(g.round is None for g in games):
        games = colour_games(games, group.size)
    return write_trf(title, entries, games, games_per_player)


def _written_points(games, swiss: TrfSwiss) -> dict[int, Decimal]:
    """Each player's points in the rounds written, 1, ½, 0 (a pairing-allocated bye: 1), as
    TRF readers and the pairing count them."""
    half = {"1": 2, "+": 2, "=": 1}
    points: dict[int, int] = {}
    for game in games:
        for number, code in ((game.white, game.codes[0]), (game.black, game.codes[1])):
            points[number] = points.get(number, 0) + half.get(code, 0)
    for number in swiss.byes:
        points[number] = points.get(number, 0) + 2
    return {number: Decimal(value) / 2 for number, value in points.items()}


def _swiss(group, seat_of: Mapping[int, int], order, rows):
    """A Swiss group's rounds, initial colour, byes and, when accelerated, virtual points, the
    games to write and the notes saying what was left out or written for pairing.

    The round in play (the last one paired, some games without a result) is left out while
    its games hold up the next round: TRF-2026 has no result code for a game paired but not
    finished (a blank result is a zero-point bye, which bbpPairings refuses with an
    opponent), so the file is the state after the rounds finished, and a pairing program
    pairs the round in play from it as the stage did. Once its deadline sent the unfinished
    games to adjudication they count as draws for pairing (apps/office/swiss/state.py), and
    the file writes them so (``=``), so that the next round is paired as the stage pairs it.

    ``XXA`` lines: each round paired gives the virtual points it was paired with
    (``SwissRound.virtual_points``), the rounds not paired yet those the current field gets
    (as the stage will pair them)."""
    from apps.entrants.models import StageEntry
    from apps.groups.models import SwissBye, SwissRound
    from apps.groups.rounds import applied_virtual_points
    from apps.silli.swiss_system import colour_of_rule, round_virtual_points

    stage = group.stage
    total = stage.swiss_rounds or 0
    byes = list(SwissBye.objects.filter(group=group).values_list("round", "entrant_id"))
    paired = max([r for *_, r in rows if r] + [r for r, _ in byes] + [0])
    open_games = [row for row in rows if row[3] == paired and not Result(row[2]).finished]
    notes: list[str] = []
    next_round = paired + 1  # the round a pairing program pairs from the file
    if open_games:
        current = SwissRound.objects.filter(group=group, number=paired).first()
        if current is not None and current.adjudicating:
            rows = [
                (w, b, Result.DRAW.value if (w, b, r, n) in open_games else r, n)
                for w, b, r, n in rows
            ]
            pairs = ", ".join(f"{seat_of[w]}-{seat_of[b]}" for w, b, *_ in open_games)
            notes.append(
                f"round {paired}: {len(open_games)} game(s) with the adjudicator ({pairs}) are "
                "written as draws, as the stage counts them for pairing until their results "
                "are entered"
            )
        else:
            next_round = paired
            in_round = {e for w, b, _r, n in rows if n == paired for e in (w, b)}
            in_round |= {e for r, e in byes if r == paired}
            rows = [row for row in rows if row[3] != paired]
            byes = [(r, e) for r, e in byes if r != paired]
            notes.append(
                f"round {paired} is in play ({len(open_games)} game(s) without a result): "
                f"left out; the file holds rounds 1-{paired - 1} of {total}"
                if paired > 1
                else f"round 1 is in play ({len(open_games)} game(s) without a result): "
                f"left out; the file holds no round of {total}"
            )
    applied = applied_virtual_points(group)
    virtual: dict[int, dict[int, int]] = {}
    for number in range(1, total + 1):
        points = applied.get(number)
        if points is None:
            points = round_virtual_points(order, total, stage.swiss_acceleration, number)
        for seat, value in points.items():
            virtual.setdefault(seat, {})[number] = value
    tpn = {seat: n for n, seat in enumerate(order, 1)}
    if next_round == paired:  # left out: who the stage did not pair in it
        absent = {seat_of[e] for e in seat_of if e not in in_round}
    else:  # withdrawn: the stage will not pair them
        gone = StageEntry.objects.filter(
            stage=stage, withdrawn_at__isnull=False, entrant_id__in=list(seat_of)
        ).values_list("entrant_id", flat=True)
        absent = {seat_of[e] for e in gone}
    swiss = TrfSwiss(
        total_rounds=total,
        first_colour=Colour[colour_of_rule(group.rule).name],
        byes={seat_of[entrant]: number for number, entrant in byes},
        virtual_points={tpn[seat]: table for seat, table in virtual.items() if seat in tpn},
        absent={next_round: sorted(absent)} if absent and 0 < next_round <= total else {},
    )
    return swiss, rows, notes
