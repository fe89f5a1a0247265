"""The Swiss system as a stage format: the whole stage is one group, paired round by round by
the Dutch engine (:mod:`apps.silli.swiss`).

Pure Python, like the rest of the engine. This module adapts the engine's TRF-shaped state
(:class:`~apps.silli.swiss.trf.Tournament`) to the stage's seats:

* a player's start number is their seat: the draw seats in the initial order, rating
  descending, then name, then code (:func:`initial_order`), so the seats are FIDE's pairing
  numbers (TPN) until a late entrant joins at the end (seat n + 1). Then the pairing numbers
  are the initial order of all the seats again (FIDE C.04.2: late entrants' pairing numbers
  are reassigned by the initial ranking): :func:`pairing_order` gives the seats in TPN
  order, and :func:`pair_next` relabels seats ↔ TPN around the engine, which sees 1..n;
* the draw pairs round 1 (:meth:`SwissSystem.draw_group`); the initial colour (the colour the
  top seat gets in round 1, FIDE C.04.3 E.5) comes from the seed and is recorded in the
  group's ``rule`` (``"dutch white1"`` / ``"dutch black1"``), so that the verifier and every
  later round find it there;
* later rounds (:func:`pair_next`) are paired from :class:`SeatRound` records the Django side
  reads from its games and byes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .entrants import Entrant
from .formats import Format
from .records import DrawError, Game, GroupDraw, Seat
from .rng import ChanceStream
from .seating import Conflict, forbidden_reason
from .swiss.acceleration import Acceleration, virtual_points
from .swiss.dutch import Pairing, PairingError, pair_round
from .swiss.trf import Colour, RoundCell, Tournament, TrfPlayer

if TYPE_CHECKING:
    from .draw import DrawSettings
    from .systems import ExpectedGames, GameSettings

SWISS = Format.SWISS
RULE_PREFIX = "dutch "
ACCELERATIONS = tuple(a.value for a in Acceleration)

__all__ = [
    "SWISS",
    "Ranked",
    "RankedPlayer",
    "SeatRound",
    "SwissSystem",
    "initial_colour",
    "initial_order",
    "pair_next",
    "pairing_order",
    "round_virtual_points",
    "rule_text",
    "colour_of_rule",
]


class Ranked(Protocol):
    """What the initial order reads of a player (an engine entrant or a stored one)."""

    @property
    def code(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def rating(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class RankedPlayer:
    """A player as the initial order reads them (where no whole entrant is at hand)."""

    code: str
    name: str
    rating: int | None = None


def _initial_key(e: Ranked) -> tuple[int, str, str, str]:
    return (-(e.rating or 0), e.name.casefold(), e.name, e.code)


def initial_order(members: Iterable[Entrant]) -> list[Entrant]:
    """The initial order (TPN): rating descending (none as 0), then name, then code."""
    return sorted(members, key=_initial_key)


def pairing_order(seats: Mapping[int, Ranked]) -> list[int]:
    """The seats (seat → its player) in pairing-number order: the initial order of all of
    them, TPN 1 first. The draw seats in that order, so without late entrants it is
    ``[1, 2, …, n]``; a late entrant (seated at the end) takes the place their rating gives."""
    return sorted(seats, key=lambda seat: _initial_key(seats[seat]))


def initial_colour(seed: str) -> Colour:
    """The colour of the top seat in round 1, drawn from the seed (stream ``swiss/colour``)."""
    return Colour.WHITE if ChanceStream(seed, "swiss/colour").word() % 2 == 0 else Colour.BLACK


def rule_text(colour: Colour) -> str:
    return f"{RULE_PREFIX}{'white1' if colour is Colour.WHITE else 'black1'}"


def colour_of_rule(rule: str) -> Colour:
    """The initial colour a group's ``rule`` records (white when it records none)."""
    return Colour.BLACK if rule.strip().endswith("black1") else Colour.WHITE


@dataclass(frozen=True, slots=True)
class SeatRound:
    """One round of one seat as the database holds it.

    ``opponent`` is the opponent's seat (None: no game that round); ``white`` the seat's
    colour; ``result`` the TRF result code from this seat's side: ``1 = 0`` played, ``+ -``
    forfeits, ``U`` the pairing-allocated bye, ``Z`` absent (not paired), ``" "`` a game not
    finished yet (counted as nothing).
    """

    opponent: int | None
    white: bool | None
    result: str


def round_virtual_points(
    order: Sequence[int], total_rounds: int, acceleration: str, round_number: int
) -> dict[int, int]:
    """The virtual points (half-points) the engine gives round ``round_number`` when it pairs
    the seats in pairing-number order ``order`` now: seat → value, the players without any
    left out (none without acceleration). Kept with the round when it is paired
    (``SwissRound.virtual_points``), so that later rounds and the TRF export's ``XXA`` lines
    use the points applied then, not the points the field of a later round would give."""
    method = Acceleration(acceleration)
    if method is Acceleration.NONE:
        return {}
    table = virtual_points(list(range(1, len(order) + 1)), total_rounds, method)
    seat_of = dict(enumerate(order, start=1))
    return {
        seat_of[tpn]: rounds[round_number]
        for tpn, rounds in table.items()
        if rounds.get(round_number)
    }


def tournament_state(
    size: int,
    rounds: Mapping[int, Sequence[SeatRound]],
    total_rounds: int,
    colour: Colour,
    absent: Iterable[int] = (),
    virtual: Mapping[int, Mapping[int, int]] | None = None,
) -> Tournament:
    """The engine's state: seats 1..size, each with its rounds (missing seats: no rounds)."""
    players: dict[int, TrfPlayer] = {}
    for seat in range(1, size + 1):
        cells = [
            RoundCell(
                r.opponent,
                None if r.white is None else (Colour.WHITE if r.white else Colour.BLACK),
                r.result,
            )
            for r in rounds.get(seat, ())
        ]
        players[seat] = TrfPlayer(seat, str(seat), 0, "", cells)
    table = {p: dict(r) for p, r in (virtual or {}).items()}
    return Tournament(players, total_rounds, colour, table, set(absent))


def pair_next(
    size: int,
    rounds: Mapping[int, Sequence[SeatRound]],
    total_rounds: int,
    acceleration: str,
    colour: Colour,
    absent: Iterable[int] = (),
    order: Sequence[int] | None = None,
    applied: Mapping[int, Mapping[int, int]] | None = None,
) -> Pairing:
    """Pair the round after those in ``rounds`` (every seat's list has one entry a round).

    ``order``: the seats in pairing-number order (:func:`pairing_order`; None: the seats are
    the pairing numbers). The engine pairs TPN 1..size; its pairing is given back in seats.
    ``applied``: round → seat → half-points, the virtual points the earlier rounds were
    paired with (:func:`round_virtual_points`); with acceleration they stand for those rounds
    (the floats of earlier rounds are read from them), and the round to pair and the later
    ones get the points the current field gives."""
    lengths = {len(r) for r in rounds.values()} or {0}
    if len(lengths) != 1:
        raise PairingError("every seat needs a record of every round played so far")
    round_number = lengths.pop() + 1
    if order is None:
        order = list(range(1, size + 1))
    if sorted(order) != list(range(1, size + 1)):
        raise PairingError(f"the pairing order must name each of the seats 1..{size} once")
    tpn = {seat: number for number, seat in enumerate(order, start=1)}
    method = Acceleration(acceleration)
    virtual: dict[int, dict[int, int]] | None = None
    if method is not Acceleration.NONE and applied:
        everyone = list(range(1, size + 1))  # by pairing number, as the engine gives them
        virtual = {n: dict(t) for n, t in virtual_points(everyone, total_rounds, method).items()}
        for number, points in applied.items():
            if number >= round_number:
                continue
            for table in virtual.values():
                table.pop(number, None)
            for seat, value in points.items():
                if seat in tpn and value:
                    virtual.setdefault(tpn[seat], {})[number] = value
        method = Acceleration.NONE

    def relabelled(cell: SeatRound) -> SeatRound:
        opponent = None if cell.opponent is None else tpn[cell.opponent]
        return SeatRound(opponent, cell.white, cell.result)

    state = tournament_state(
        size,
        {tpn[seat]: [relabelled(c) for c in cells] for seat, cells in rounds.items()},
        total_rounds,
        colour,
        {tpn[seat] for seat in absent},
        virtual,
    )
    pairing = pair_round(state, round_number, method)
    seat_of = dict(enumerate(order, start=1))
    return Pairing(
        round_number=pairing.round_number,
        pairs=tuple((seat_of[w], seat_of[b]) for w, b in pairing.pairs),
        bye=None if pairing.bye is None else seat_of[pairing.bye],
        absent=tuple(sorted(seat_of[a] for a in pairing.absent)),
    )


class SwissSystem:
    """The Dutch Swiss system: one group of the whole stage, paired one round at a time."""

    name = SWISS
    closed_circle = False
    one_group = True

    def draw_group(
        self,
        number: int,
        members: Sequence[Entrant],
        settings: DrawSettings,
        seed: str,
        rematches: Mapping[str, frozenset[str]],
    ) -> GroupDraw:
        """Round 1: seats in the initial order, games from the Dutch engine (the seat
        without a game has the pairing-allocated bye)."""
        ordered = initial_order(members)
        rounds = settings.swiss_rounds or 0
        if not 1 <= rounds <= len(ordered) - 1:
            raise DrawError(
                f"Group {number} ({len(ordered)} players): a Swiss of {rounds} rounds needs "
                f"1 to {len(ordered) - 1} rounds for {len(ordered)} players.",
                group=number,
            )
        colour = initial_colour(seed)
        try:
            pairing = pair_next(len(ordered), {}, rounds, settings.swiss_acceleration, colour)
        except (PairingError, ValueError) as exc:
            raise DrawError(f"Group {number}: {exc}", group=number) from exc
        seats = tuple(Seat(i + 1, e.code, e.nation) for i, e in enumerate(ordered))
        games, conflicts = [], []
        for w, b in pairing.pairs:
            white, black = ordered[w - 1], ordered[b - 1]
            games.append(Game(white.code, black.code, 1))
            reason = forbidden_reason(white, black, settings.separate_nations, rematches)
            if reason:
                conflicts.append(Conflict(w, b, white.code, black.code, reason))
        return GroupDraw(number, (), rule_text(colour), seats, tuple(games), True, tuple(conflicts))

    def expected_games(
        self, size: int, group: Mapping[str, Any], settings: DrawSettings
    ) -> ExpectedGames:
        """Round 1 only (later rounds follow results, not the draw): the Dutch pairing of
        ``size`` players in seat order with the recorded initial colour."""
        from .systems import ExpectedGames

        rule = str(group.get("rule") or "")
        problems = [] if rule.startswith(RULE_PREFIX) else [f"rule {rule!r} is not a Swiss one"]
        rounds = settings.swiss_rounds or 0
        if not 1 <= rounds <= size - 1:
            return ExpectedGames([], [*problems, f"{rounds} rounds for {size} players"])
        pairing = pair_next(size, {}, rounds, settings.swiss_acceleration, colour_of_rule(rule))
        return ExpectedGames(list(pairing.pairs), problems)

    def games_per_player(self, size: int, settings: GameSettings) -> int:
        """The rounds: a bye or an unpaired round counts as one of them."""
        return max(1, settings.swiss_rounds or 0)
