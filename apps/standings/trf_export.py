"""A group's results as a FIDE TRF (TRF16) file, readable by ``standings_from_trf``.

TRF files are organised by rounds, and a Silli group has none: every game is played at once.
Each game is given an artificial "round" by a proper edge colouring of the group's game graph
(no player has two games in one round). The colouring is greedy: games are taken distance by
distance (``black seat − white seat`` modulo the group's size), walking each circle
``x, x + d, x + 2d, …``, and each gets the lowest round in which neither player has a game yet.
Greedy needs at most ``2·(2k) − 1`` rounds for ``k`` White games per player and its result
depends on the order of the distances, so up to :data:`MAX_ORDERS` orders are tried and the
first that needs only ``2k`` rounds (else the best) is kept. On even groups that usually finds
``2k``; an odd group can never have it (a round pairs at most ``n − 1`` of its ``n`` players)
and gets ``2k + 1`` or a little more. Round robins keep the rounds their draw stored.

A Swiss group's players are numbered by pairing number (TPN), the seats in the initial order:
the seats themselves unless late entrants joined (they sit at the end but are paired by their
rating), so that ``swiss_pair`` on the file pairs the next round as the stage does.

``XXR`` is the number of games per player when every player has a game in every round, else
the number of rounds; a player's rounds without a game are written ``0000 - Z`` (not paired,
no points).

Limits, honestly: the file gives every player the same points as the stored standings (a test
checks it) and the same Buchholz figures under the classic convention, but when ``XXR`` is
larger than the games per player, a reader's Torino figures (which use T = ``XXR``) and the
count of games differ from the application's. TRF has no place for a tournament's own points
per result, so the file is read with 1, ½, 0. Unfinished games are written with their opponent
and colour and a blank result, which readers leave out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import islice, permutations

from apps.core.csvfiles import safe_cell
from apps.core.results import Result

ROUND_START = 91  # 0-based index of round 1's cell (TRF column 92)
ROUND_WIDTH = 10
NOT_PAIRED = "0000 - Z"
PAIRING_ALLOCATED_BYE = "0000 - U"
MAX_ORDERS = 120  # orders of the distances tried by :func:`colour_games` (5! for k = 5)


@dataclass(frozen=True)
class TrfGame:
    white: int  # start rank (the seat)
    black: int
    result: str  # the application's code, "" while in progress
    round: int | None = None


@dataclass(frozen=True)
class TrfEntry:
    seat: int
    name: str
    nation: str
    rating: int | None
    points: Decimal
    rank: int | None


def circle_order(games: Sequence[TrfGame], size: int, distances: Sequence[int]) -> list[TrfGame]:
    """The games distance by distance (in the order given), each circle ``x, x + d, x + 2d, …``
    walked in turn; games at other distances follow in their own order."""
    by_pair = {(g.white, g.black): g for g in games}
    ordered: list[TrfGame] = []
    for d in distances:
        seen: set[int] = set()
        for start in range(1, size + 1):
            seat = start
            while seat not in seen:
                seen.add(seat)
                other = (seat - 1 + d) % size + 1
                game = by_pair.get((seat, other))
                if game is not None:
                    ordered.append(game)
                seat = other
    placed = set(map(id, ordered))
    return ordered + [g for g in games if id(g) not in placed]


def colour_games(games: Sequence[TrfGame], size: int) -> list[TrfGame]:
    """Rounds for a group's games: the greedy colouring of the first distance order that needs
    no more rounds than the most games of a player, else of the order needing the fewest."""
    degree: dict[int, int] = defaultdict(int)
    for game in games:
        degree[game.white] += 1
        degree[game.black] += 1
    least = max(degree.values(), default=0)
    distances = sorted({(g.black - g.white) % size for g in games})
    best: list[TrfGame] = []
    for order in islice(permutations(distances), MAX_ORDERS):
        coloured = assign_rounds(circle_order(games, size, order))
        if not best or _rounds(coloured) < _rounds(best):
            best = coloured
        if _rounds(best) <= least:
            break
    return best


def _rounds(games: Iterable[TrfGame]) -> int:
    return max((g.round or 0 for g in games), default=0)


def assign_rounds(games: Iterable[TrfGame]) -> list[TrfGame]:
    """A proper edge colouring, greedy in the given order: each game gets the lowest round
    in which neither of its players has a game yet."""
    busy: dict[int, set[int]] = defaultdict(set)
    coloured = []
    for game in games:
        number = 1
        while number in busy[game.white] or number in busy[game.black]:
            number += 1
        busy[game.white].add(number)
        busy[game.black].add(number)
        coloured.append(TrfGame(game.white, game.black, game.result, number))
    return coloured


def write_trf(
    title: str,
    entries: Sequence[TrfEntry],
    games: Sequence[TrfGame],
    games_per_player: int,
    *,
    byes: Mapping[int, int] | None = None,
    total_rounds: int | None = None,
    extra: Sequence[str] = (),
) -> str:
    """The TRF text of ``entries`` and their ``games`` (each with its round).

    A Swiss group also gives its pairing-allocated ``byes`` (seat → round, written
    ``0000 - U``), its ``total_rounds`` (``XXR``, though fewer may be paired yet) and
    ``extra`` lines after ``XXR`` (``XXC``, ``XXA``)."""
    byes = byes or {}
    rounds = max(_rounds(games), max(byes.values(), default=0))
    cells: dict[int, dict[int, str]] = defaultdict(dict)
    for seat, number in byes.items():
        cells[seat][number] = PAIRING_ALLOCATED_BYE
    for game in games:
        if game.round is None:
            raise ValueError(f"game {game.white}-{game.black} has no round: see colour_games")
        white_code, black_code = Result(game.result).trf_codes
        cells[game.white][game.round] = f"{game.black:4d} w {white_code}"
        cells[game.black][game.round] = f"{game.white:4d} b {black_code}"
    everyone_every_round = all(len(cells[e.seat]) == rounds for e in entries)
    declared = games_per_player if everyone_every_round and rounds == games_per_player else rounds
    if total_rounds is not None:
        declared = total_rounds
    lines = [f"012 {title}", f"XXR {declared}", *extra]
    for entry in sorted(entries, key=lambda e: e.seat):
        head = (
            f"001 {entry.seat:4d}     {safe_cell(entry.name)[:33]:<33} "
            f"{entry.rating or '':>4} {entry.nation[:3]:<3} {'':>11} {'':<10} "
            f"{entry.points:4.1f} {entry.rank or '':>4}"
        )
        line = head.ljust(ROUND_START)
        for number in range(1, rounds + 1):
            line += cells[entry.seat].get(number, NOT_PAIRED).ljust(ROUND_WIDTH)
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


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
                seat.entrant.name,
                seat.entrant.nation,
                seat.entrant.rating,
                standing.points if standing else Decimal(0),
                int(standing.place.split("-")[0]) if standing and standing.place else None,
            )
        )
    games = [
        TrfGame(seat_of[white], seat_of[black], result, round_)
        for white, black, result, round_ in Game.objects.filter(group=group)
        .order_by("number")
        .values_list("white_id", "black_id", "result", "round")
    ]
    title = f"{stage.tournament.name} — {stage.get_kind_display()} — group {group.number}"
    if stage.is_swiss:
        return write_trf(
            title, entries, games, stage_games_per_player(stage, group), **_swiss(group, seat_of)
        )
    if not games or any(g.round is None for g in games):
        games = colour_games(games, group.size)
    return write_trf(title, entries, games, stage_games_per_player(stage, group))


def _swiss(group, seat_of: Mapping[int, int]) -> dict:
    """A Swiss group's byes, its rounds, its initial colour (``XXC``) and, when accelerated,
    each seat's virtual points a round (``XXA``; pairing only, never in the points)."""
    from apps.groups.models import SwissBye
    from apps.silli.swiss.acceleration import Acceleration, virtual_points
    from apps.silli.swiss_system import colour_of_rule

    stage = group.stage
    total = stage.swiss_rounds or 0
    byes = {
        seat_of[entrant]: number
        for number, entrant in SwissBye.objects.filter(group=group).values_list(
            "round", "entrant_id"
        )
    }
    extra = [f"XXC {colour_of_rule(group.rule).name.lower()}1"]
    method = Acceleration(stage.swiss_acceleration)
    if method is not Acceleration.NONE and total:
        table = virtual_points(sorted(seat_of.values()), total, method)
        for seat in sorted(table):
            if table[seat]:
                values = " ".join(f"{table[seat].get(r, 0) / 2:4.1f}" for r in range(1, total + 1))
                extra.append(f"XXA {seat:4d} {values}")
    return {"byes": byes, "total_rounds": total, "extra": extra}
