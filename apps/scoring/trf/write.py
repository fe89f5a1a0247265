"""A group's players and games as a FIDE TRF file in the TRF-2026 column layout (the player
section as in TRF16), readable by :mod:`.read`.

Plain data in, text out: one :class:`TrfEntry` per player (numbered by the caller: its seat,
or its pairing number in a Swiss), one :class:`TrfGame` per game with the TRF result codes of
both sides, and for a Swiss group its :class:`TrfSwiss` settings.

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

``XXR`` is the number of games per player when every player has a game in every round, else
the number of rounds (a Swiss group: its total rounds); a player's rounds without a game are
written ``0000 - Z`` (not paired, no points). Unfinished games are written with their
opponent and colour and a blank result, which readers leave out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import islice, permutations

from ..tiebreaks import Colour
from .read import ROUND_START, ROUND_WIDTH

NOT_PAIRED = "0000 - Z"
PAIRING_ALLOCATED_BYE = "0000 - U"
MAX_ORDERS = 120  # orders of the distances tried by :func:`colour_games` (5! for k = 5)


@dataclass(frozen=True)
class TrfGame:
    """A game between two players' numbers, with each side's TRF result code (``1 = 0``,
    ``+ -``; blanks while the game is unfinished) and its round, once it has one."""

    white: int
    black: int
    codes: tuple[str, str] = (" ", " ")  # (White's, Black's)
    round: int | None = None


@dataclass(frozen=True)
class TrfEntry:
    """A player's ``001`` line: number, name (written as given, cut to 33 characters),
    nation, rating, points and place (``None``: none yet)."""

    seat: int
    name: str
    nation: str
    rating: int | None
    points: Decimal
    rank: int | None


@dataclass(frozen=True)
class TrfSwiss:
    """What a Swiss group adds: its total rounds (``XXR``, though fewer may be paired yet),
    its pairing-allocated byes (player → round, written ``0000 - U``), the colour of player 1
    in round 1 (``XXC``) and, when accelerated, each player's virtual points per round in
    half-points (``XXA``; pairing only, never in the points)."""

    total_rounds: int
    first_colour: Colour
    byes: Mapping[int, int] = field(default_factory=dict)
    virtual_points: Mapping[int, Mapping[int, int]] = field(default_factory=dict)
    absent: Mapping[int, Sequence[int]] = field(default_factory=dict)
    """round → the players not to be paired in it (a round not written yet): TRF-2026
    ``240 Z`` lines (zero-point byes) and, for TRF(x) readers, an ``XXZ`` line."""


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
        coloured.append(TrfGame(game.white, game.black, game.codes, number))
    return coloured


def write_trf(
    title: str,
    entries: Sequence[TrfEntry],
    games: Sequence[TrfGame],
    games_per_player: int,
    *,
    swiss: TrfSwiss | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The TRF text of ``entries`` and their ``games`` (each with its round: see
    :func:`colour_games`); a Swiss group also gives its ``swiss`` settings. ``notes`` are
    written as comment lines (``### …``, TRF-2026 Remark 1) after the tournament lines."""
    byes = swiss.byes if swiss else {}
    rounds = max(_rounds(games), max(byes.values(), default=0))
    cells: dict[int, dict[int, str]] = defaultdict(dict)
    for seat, number in byes.items():
        cells[seat][number] = PAIRING_ALLOCATED_BYE
    for game in games:
        if game.round is None:
            raise ValueError(f"game {game.white}-{game.black} has no round: see colour_games")
        white_code, black_code = game.codes
        cells[game.white][game.round] = f"{game.black:4d} w {white_code}"
        cells[game.black][game.round] = f"{game.white:4d} b {black_code}"
    everyone_every_round = all(len(cells[e.seat]) == rounds for e in entries)
    declared = games_per_player if everyone_every_round and rounds == games_per_player else rounds
    lines = [
        f"012 {title}",
        f"062 {len(entries)}",
        f"072 {sum(1 for e in entries if e.rating)}",
    ]
    if swiss is None:
        lines.append(f"XXR {declared}")
    else:
        lines += [f"XXR {swiss.total_rounds}", *_swiss_lines(swiss)]
    lines += [f"### {note}" for note in notes]
    for entry in sorted(entries, key=lambda e: e.seat):
        line = player_head(entry)
        for number in range(1, rounds + 1):
            line += cells[entry.seat].get(number, NOT_PAIRED).ljust(ROUND_WIDTH)
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def player_head(entry: TrfEntry) -> str:
    """A ``001`` line up to round 1's cell (91 characters), by the TRF-2026 player section:
    1–3 ``001``, 5–8 start rank, 10 sex and 11–13 title (blank), 15–47 name, 49–52 rating,
    54–56 federation, 58–68 FIDE number and 70–79 birth date (blank), 81–84 points (``11.5``),
    86–89 rank; columns 4, 9, 14, 48, 53, 57, 69, 80, 85, 90 and 91 are blank."""
    if not 1 <= entry.seat <= 9999:
        raise ValueError(f"start rank {entry.seat} does not fit columns 5-8")
    points = f"{entry.points:.1f}"
    if len(points) > 4:
        raise ValueError(f"points {points} do not fit columns 81-84")
    fields = (
        (1, "001"),
        (5, f"{entry.seat:>4}"),
        (15, f"{entry.name[:33]:<33}"),
        (49, f"{entry.rating or '':>4}"),
        (54, f"{entry.nation[:3]:<3}"),
        (81, f"{points:>4}"),
        (86, f"{entry.rank or '':>4}"),
    )
    line = ""
    for column, text in fields:
        line = line.ljust(column - 1) + text
    return line.ljust(ROUND_START)


def _swiss_lines(swiss: TrfSwiss) -> list[str]:
    """``XXC`` (player 1's colour in round 1), then one ``XXA`` line per player with virtual
    points, in points for rounds 1 to the last (``XXA NNNN pp.p pp.p …``: the player in
    columns 5–8, the values from column 10, five columns apart), then the absences of the
    next round (``240 Z RRR PPPP PPPP …``: TRF-2026's bye section, the round in columns 7–9,
    the players from column 11, five columns apart; and ``XXZ`` with the same players)."""
    lines = [f"XXC {swiss.first_colour.name.lower()}1"]
    for seat in sorted(swiss.virtual_points):
        table = swiss.virtual_points[seat]
        if table:
            values = " ".join(
                f"{table.get(r, 0) / 2:4.1f}" for r in range(1, swiss.total_rounds + 1)
            )
            lines.append(f"XXA {seat:4d} {values}")
    for number in sorted(swiss.absent):
        players = sorted(swiss.absent[number])
        for start in range(0, len(players), 20):
            ids = "".join(f" {p:>4}" for p in players[start : start + 20])
            lines.append(f"240 Z {number:03d}{ids}")
        if players:
            lines.append("XXZ " + " ".join(str(p) for p in players))
    return lines
