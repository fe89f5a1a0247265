"""Reading a FIDE TRF file into the state a Swiss pairing needs.

Pure Python, no Django.  Read: the ``001`` player records (start rank in columns 5–8, name
15–47, rating 49–52, points 81–84, and from column 92 one 10-character cell per round,
``oooo c r``: opponent, colour ``w``/``b``/``-``, result), ``XXR`` or TRF-2026's ``142`` (total
rounds), ``XXC`` (``white1``/``black1``: the initial colour; ``rank`` is accepted and ignored) or
TRF-2026's ``152 W``/``152 B`` (the initial colour), ``XXA`` (a
player's virtual points per round, ``XXA NNNN pp.p pp.p ...``) and ``XXZ`` (players absent in
the round to be paired).  Other lines are ignored.

Result codes (TRF16/TRF-2026):

    1 = 0     win, draw, loss                       played
    W D L     win, draw, loss not rated             played
    + -       forfeit win / loss                    not played
    F         full-point bye (not pairing-allocated) not played, 1 point
    U         pairing-allocated bye                 not played, 1 point
    H         half-point bye                        not played, ½ point
    Z, blank  zero-point bye / absence              not played, 0 points

The round to be paired is the first round in which nobody has an opponent or the PAB; a cell of that
round without an opponent (``0000 - H`` and the like) is an announced absence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

ROUND_START = 91
ROUND_WIDTH = 10


class TrfError(ValueError):
    """A malformed TRF file; the message names the line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class Colour(Enum):
    WHITE = "w"
    BLACK = "b"

    @property
    def other(self) -> Colour:
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE


PLAYED_RESULTS = frozenset("1=0WDL")
RESULT_CODES = frozenset("1=0WDL+-FUHZ ")
# Points in half-points, as the FIDE default scoring counts them for pairing.
HALF_POINTS = {
    "1": 2, "W": 2, "+": 2, "F": 2, "U": 2,
    "=": 1, "D": 1, "H": 1,
    "0": 0, "L": 0, "-": 0, "Z": 0, " ": 0,
}  # fmt: skip


@dataclass(frozen=True)
class RoundCell:
    """One round of a player's record."""

    opponent: int | None
    colour: Colour | None
    result: str
    """The TRF result code, one character (blank as ``" "``)."""

    @property
    def played(self) -> bool:
        """A game actually played over the board (forfeits and byes are not)."""
        return self.opponent is not None and self.result in PLAYED_RESULTS

    @property
    def half_points(self) -> int:
        return HALF_POINTS[self.result]

    @property
    def pairing_allocated_bye(self) -> bool:
        return self.opponent is None and self.result == "U"

    @property
    def win_without_playing(self) -> bool:
        """Scored a win's points in the round without playing it (C.04.1 Art. 4)."""
        return not self.played and self.half_points == 2


@dataclass
class TrfPlayer:
    number: int
    name: str
    rating: int
    points: str
    """The points column as written (not used for pairing: scores are recomputed)."""
    rounds: list[RoundCell] = field(default_factory=list)
    line: int = 0


@dataclass
class Tournament:
    """A TRF file's tournament state."""

    players: dict[int, TrfPlayer]
    total_rounds: int | None = None
    initial_colour: Colour | None = None
    virtual_points: dict[int, dict[int, int]] = field(default_factory=dict)
    """``virtual_points[player][round]``: XXA virtual points, in half-points."""
    absent: set[int] = field(default_factory=set)
    """Players listed on an ``XXZ`` line: not paired in the next round."""

    @property
    def rounds_with_pairings(self) -> int:
        """The last round in which some player has an opponent or the PAB (0 before round 1)."""
        last = 0
        for player in self.players.values():
            for index, cell in enumerate(player.rounds, start=1):
                if cell.opponent is not None or cell.pairing_allocated_bye:
                    last = max(last, index)
        return last

    def truncated(self, rounds: int) -> Tournament:
        """The state after ``rounds`` rounds: later cells dropped, no announced absences."""
        players = {
            number: TrfPlayer(p.number, p.name, p.rating, p.points, p.rounds[:rounds], p.line)
            for number, p in self.players.items()
        }
        return Tournament(
            players, self.total_rounds, self.initial_colour, self.virtual_points, set()
        )


def _half_points(text: str, line: int) -> int:
    try:
        value = float(text)
    except ValueError:
        raise TrfError(line, f"{text!r} is not a number of points") from None
    doubled = value * 2
    if doubled != int(doubled):
        raise TrfError(line, f"{text!r} is not a multiple of a half point")
    return int(doubled)


def _parse_cell(cell: str, line: int, round_number: int) -> RoundCell:
    cell = cell.ljust(8)
    opponent_text, colour_text, result = cell[0:4].strip(), cell[5], cell[7]
    if cell[4] != " " or cell[6] != " ":
        raise TrfError(line, f"round {round_number}: cell {cell!r} is not 'oooo c r'")
    if opponent_text in ("", "0000") or opponent_text.strip("0") == "":
        opponent = None
    elif opponent_text.isdigit():
        opponent = int(opponent_text)
    else:
        raise TrfError(line, f"round {round_number}: opponent {opponent_text!r} is not a number")
    if colour_text not in "wb- ":
        raise TrfError(line, f"round {round_number}: colour {colour_text!r} is not w, b or -")
    if result not in RESULT_CODES:
        raise TrfError(line, f"round {round_number}: unknown result code {result!r}")
    colour = Colour(colour_text) if colour_text in "wb" else None
    if opponent is not None and result in PLAYED_RESULTS and colour is None:
        raise TrfError(line, f"round {round_number}: a played game needs the colour w or b")
    return RoundCell(opponent, colour if opponent is not None else None, result)


def _parse_player(text: str, line: int) -> TrfPlayer:
    number_text = text[4:8].strip()
    if not number_text.isdigit():
        raise TrfError(line, f"start rank {number_text!r} (columns 5-8) is not a number")
    rating_text = text[48:52].strip()
    if rating_text and not rating_text.isdigit():
        raise TrfError(line, f"rating {rating_text!r} (columns 49-52) is not a number")
    player = TrfPlayer(
        number=int(number_text),
        name=text[14:47].strip(),
        rating=int(rating_text or 0),
        points=text[80:84].strip(),
        line=line,
    )
    rest = text[ROUND_START:].rstrip()
    round_number = 0
    for start in range(0, len(rest), ROUND_WIDTH):
        round_number += 1
        player.rounds.append(_parse_cell(rest[start : start + 8], line, round_number))
    return player


def parse_trf(text: str) -> Tournament:
    """The tournament a TRF text describes; :class:`TrfError` names the first bad line."""
    players: dict[int, TrfPlayer] = {}
    total_rounds: int | None = None
    initial: Colour | None = None
    virtual: dict[int, dict[int, int]] = {}
    absent: set[int] = set()
    virtual_lines: list[tuple[int, str]] = []
    absent_lines: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        code = line[:3]
        if code == "001":
            player = _parse_player(line, number)
            if player.number in players:
                raise TrfError(number, f"start rank {player.number} appears twice")
            players[player.number] = player
        elif code in ("XXR", "142"):
            value = line[3:].strip()
            if not value.isdigit() or int(value) < 1:
                raise TrfError(number, f"{code} needs a number of rounds, not {value!r}")
            total_rounds = int(value)
        elif code == "152":
            value = line[3:].strip()
            if value not in ("W", "B"):
                raise TrfError(number, f"152 needs the initial colour W or B, not {value!r}")
            initial = Colour.WHITE if value == "W" else Colour.BLACK
        elif code == "XXC":
            for word in line[3:].split():
                if word.lower() == "white1":
                    initial = Colour.WHITE
                elif word.lower() == "black1":
                    initial = Colour.BLACK
                elif word.lower() != "rank":
                    raise TrfError(number, f"XXC: unknown option {word!r}")
        elif code == "XXA":
            virtual_lines.append((number, line))
        elif code == "XXZ":
            absent_lines.append((number, line))
    if not players:
        raise TrfError(max(1, len(text.splitlines())), "no 001 player line")
    for number, line in virtual_lines:
        fields = line[3:].split()
        if not fields or not fields[0].isdigit():
            raise TrfError(number, "XXA needs a player number and points per round")
        player_number = int(fields[0])
        if player_number not in players:
            raise TrfError(number, f"XXA: no player {player_number}")
        virtual[player_number] = {
            round_number: _half_points(value, number)
            for round_number, value in enumerate(fields[1:], start=1)
        }
    for number, line in absent_lines:
        for word in line[3:].split():
            if not word.isdigit() or int(word) not in players:
                raise TrfError(number, f"XXZ: no player {word!r}")
            absent.add(int(word))
    for player in players.values():
        for round_number, cell in enumerate(player.rounds, start=1):
            if cell.opponent is None:
                continue
            other = players.get(cell.opponent)
            if other is None:
                raise TrfError(
                    player.line, f"round {round_number}: opponent {cell.opponent} has no 001 line"
                )
            if len(other.rounds) < round_number or other.rounds[round_number - 1].opponent != (
                player.number
            ):
                raise TrfError(
                    player.line,
                    f"round {round_number}: player {player.number} meets {cell.opponent}, "
                    f"but {cell.opponent}'s record does not say so",
                )
    return Tournament(players, total_rounds, initial, virtual, absent)


def decode_trf(data: bytes) -> str:
    """TRF files are UTF-8 (TRF-2026) or, older ones, Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
