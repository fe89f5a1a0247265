"""FIDE TRF files (TRF16 player records) as tie-break input, and the standings_from_trf report.

Pure Python, no Django. Only what the tie-breaks need is read: the ``XXR`` line (number
of rounds), the ``012`` line (name) and the ``001`` player records, whose fixed columns
(1-based) are: 5–8 start rank, 15–47 name, 49–52 rating, 58–68 FIDE id, 81–84 points,
and from column 92 one 10-character cell per round, ``oooo c r``: the opponent's start
rank (``0000`` or blank: none), the colour (``w``, ``b``, ``-`` or blank) and the result:

    code    meaning                                outcome        played
    1 = 0   win, draw, loss                        win/draw/loss  yes, with an opponent
    W D L   win, draw, loss, not rated             win/draw/loss  yes, with an opponent
    + -     forfeit win, forfeit loss              win/loss       no
    F U     full-point, pairing-allocated bye      win            no
    H       half-point bye                         draw           no
    Z       zero-point bye                         loss           no
    blank   as Z                                   loss           no

A cell without an opponent is never played. A cell with an opponent and a blank result is
a game not finished yet and is left out; other blank cells, and the rounds missing at the
end of a short line, are zero-point byes, as TRF16 says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import floor

from apps.scoring.tiebreaks import (
    TORINO,
    Colour,
    CutVariant,
    Game,
    Key,
    Outcome,
    Player,
    Standing,
    Unplayed,
    compute_figures,
    rank,
)

ROUND_START = 91
"""0-based index of round 1's cell in a ``001`` line (TRF column 92)."""
ROUND_WIDTH = 10

_RESULTS: dict[str, tuple[Outcome, bool]] = {
    "1": (Outcome.WIN, True),
    "=": (Outcome.DRAW, True),
    "0": (Outcome.LOSS, True),
    "W": (Outcome.WIN, True),
    "D": (Outcome.DRAW, True),
    "L": (Outcome.LOSS, True),
    "+": (Outcome.WIN, False),
    "-": (Outcome.LOSS, False),
    "F": (Outcome.WIN, False),
    "U": (Outcome.WIN, False),
    "H": (Outcome.DRAW, False),
    "Z": (Outcome.LOSS, False),
    " ": (Outcome.LOSS, False),
}
_COLOURS = {"W": Colour.WHITE, "B": Colour.BLACK, "-": None, " ": None}

CSV_HEADER = "id,points,games,gms,rgp,bh,bh_c1,bh_c2,ts,ts_c1,ts_median,rank"


class TrfError(ValueError):
    """A TRF file that cannot be read; the message names the line."""


@dataclass(frozen=True, slots=True)
class TrfRound:
    """One round cell of a player record: opponent start rank (``None``: none), colour, code."""

    opponent: int | None
    colour: Colour | None
    result: str


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """A ``001`` record; ``points`` is the score written in the file (``None`` if blank)."""

    start_rank: int
    name: str
    rating: int | None
    fide_id: str
    points: Fraction | None
    rounds: tuple[TrfRound, ...]


@dataclass(frozen=True, slots=True)
class TrfTournament:
    """The parts of a TRF file the tie-breaks use."""

    name: str
    declared_rounds: int | None
    players: tuple[TrfPlayer, ...]

    def stage_games(self, rounds: int | None = None) -> int:
        """T: ``rounds`` if given, else the ``XXR`` line, else the most round cells of a line."""
        if rounds is not None:
            return rounds
        if self.declared_rounds is not None:
            return self.declared_rounds
        return max((len(p.rounds) for p in self.players), default=0)


def decode_trf(data: bytes) -> str:
    """A TRF file's text: UTF-8, or Latin-1 for older files that are not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_trf(text: str) -> TrfTournament:
    """Read a TRF file. Raises :class:`TrfError` for a malformed ``001`` or ``XXR`` line."""
    name = ""
    declared_rounds = None
    players = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("012"):
            name = line[4:].strip()
        elif line.startswith("XXR"):
            value = line[3:].strip()
            if not value.isdigit():
                raise TrfError(f"line {number}: XXR needs a number of rounds, got {value!r}")
            declared_rounds = int(value)
        elif line.startswith("001"):
            players.append(_parse_player(line.rstrip(), number))
    ranks = [p.start_rank for p in players]
    if len(set(ranks)) != len(ranks):
        raise TrfError("two 001 lines have the same start rank")
    return TrfTournament(name, declared_rounds, tuple(players))


def _parse_player(line: str, number: int) -> TrfPlayer:
    start_rank = line[4:8].strip()
    if not start_rank.isdigit():
        raise TrfError(f"line {number}: start rank (columns 5-8) is {start_rank!r}")
    rating = line[48:52].strip()
    points = line[80:84].strip()
    try:
        recorded = Fraction(points) if points else None
    except ValueError:
        raise TrfError(f"line {number}: points (columns 81-84) are {points!r}") from None
    cells = range(ROUND_START, len(line), ROUND_WIDTH)
    return TrfPlayer(
        start_rank=int(start_rank),
        name=line[14:47].strip(),
        rating=int(rating) if rating.isdigit() else None,
        fide_id=line[57:68].strip(),
        points=recorded,
        rounds=tuple(_parse_round(line[i : i + 8].ljust(8), number, i + 1) for i in cells),
    )


def _parse_round(cell: str, number: int, column: int) -> TrfRound:
    where = f"line {number}, column {column}"
    opponent = cell[0:4].strip()
    if opponent and not opponent.isdigit():
        raise TrfError(f"{where}: opponent {opponent!r} is not a start rank")
    colour, result = cell[5].upper(), cell[7].upper()
    if colour not in _COLOURS:
        raise TrfError(f"{where}: colour {cell[5]!r} is not w, b or -")
    if result not in _RESULTS:
        raise TrfError(f"{where}: result {cell[7]!r} is not a TRF result code")
    return TrfRound(int(opponent) if opponent and int(opponent) else None, _COLOURS[colour], result)


def players_from_trf(tournament: TrfTournament, stage_games: int) -> list[Player]:
    """The tie-break input of the first ``stage_games`` rounds, one :class:`Player` per record.

    Player ids are start ranks; rounds after ``stage_games`` are ignored. Raises
    :class:`TrfError` for an opponent with no ``001`` line.
    """
    known = {p.start_rank for p in tournament.players}
    blank = TrfRound(None, None, " ")
    players = []
    for record in tournament.players:
        rounds = record.rounds[:stage_games]
        games = []
        for number, cell in enumerate(rounds + (blank,) * (stage_games - len(rounds)), 1):
            if cell.opponent is not None and cell.opponent not in known:
                raise TrfError(
                    f"player {record.start_rank}, round {number}: "
                    f"opponent {cell.opponent} has no 001 line"
                )
            if cell.opponent is not None and cell.result == " ":
                continue
            outcome, played = _RESULTS[cell.result]
            played = played and cell.opponent is not None
            games.append(Game(cell.opponent, outcome, played, cell.colour))
        players.append(Player(record.start_rank, tuple(games)))
    return players


def standings_from_trf(
    text: str,
    *,
    rounds: int | None = None,
    chain: Sequence[Key] = TORINO,
    variant: CutVariant = CutVariant.TARGET,
    unplayed: Unplayed = Unplayed.CLASSIC,
) -> list[Standing]:
    """The standings of a TRF file: T is ``rounds``, else ``XXR``, else the round cells.

    Points are 1, ½, 0. Raises :class:`TrfError` (a :class:`ValueError`) for a bad file.
    """
    tournament = parse_trf(text)
    stage_games = tournament.stage_games(rounds)
    if stage_games < 1:
        raise TrfError(f"T is {stage_games}: give a number of rounds of at least 1 (--rounds)")
    players = players_from_trf(tournament, stage_games)
    figures = compute_figures(players, stage_games, variant=variant, unplayed=unplayed)
    return rank(figures, chain)


def standings_csv(standings: Sequence[Standing]) -> str:
    """The ``standings_from_trf`` CSV: :data:`CSV_HEADER`, then one line per player.

    Points and Buchholz figures have one decimal when they are multiples of ½ (``5.5``,
    ``29.0``), else two, rounded half up; TS figures have two, rounded half up; games are
    integers; ``rank`` is the place, ``"3-4"`` when shared. Lines end with ``\\n``.
    """
    lines = [CSV_HEADER]
    for standing in standings:
        f = standing.figures
        fields = [
            str(f.id),
            _points(f.points),
            str(f.games),
            str(f.gms),
            _points(f.rgp),
            _points(f.bh),
            _points(f.bh_c1),
            _points(f.bh_c2),
            _fixed(f.ts, 2),
            _fixed(f.ts_cut1, 2),
            _fixed(f.ts_median, 2),
            standing.label,
        ]
        lines.append(",".join(fields))
    return "\n".join(lines) + "\n"


def _points(value: Fraction) -> str:
    return _fixed(value, 1 if (value * 2).denominator == 1 else 2)


def _fixed(value: Fraction, places: int) -> str:
    """``value`` (not negative) rounded half up to ``places`` decimals."""
    digits = str(floor(value * 10**places + Fraction(1, 2))).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}"
