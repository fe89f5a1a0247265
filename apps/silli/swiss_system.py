"""The Swiss system as a stage format: the whole stage is one group, paired round by round by
the Dutch engine (:mod:`apps.silli.swiss`).

Pure Python, like the rest of the engine. This module adapts the engine's TRF-shaped state
(:class:`~apps.silli.swiss.trf.Tournament`) to the stage's seats:

* a player's start number (FIDE's TPN) is their seat: the seats are in the initial order,
  rating descending, then name, then code (:func:`initial_order`);
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
from typing import TYPE_CHECKING, Any

from .entrants import Entrant
from .records import DrawError, Game, GroupDraw, Seat
from .rng import ChanceStream
from .seating import Conflict, forbidden_reason
from .swiss.acceleration import Acceleration
from .swiss.dutch import Pairing, PairingError, pair_round
from .swiss.trf import Colour, RoundCell, Tournament, TrfPlayer

if TYPE_CHECKING:
    from .draw import DrawSettings
    from .systems import ExpectedGames, GameSettings

SWISS = "swiss"
RULE_PREFIX = "dutch "
ACCELERATIONS = tuple(a.value for a in Acceleration)

__all__ = [
    "SWISS",
    "SeatRound",
    "SwissSystem",
    "initial_colour",
    "initial_order",
    "pair_next",
    "rule_text",
    "colour_of_rule",
]


def initial_order(members: Iterable[Entrant]) -> list[Entrant]:
    """The initial order (TPN): rating descending (none as 0), then name, then code."""
    return sorted(members, key=lambda e: (-(e.rating or 0), e.name.casefold(), e.name, e.code))


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


def tournament_state(
    size: int,
    rounds: Mapping[int, Sequence[SeatRound]],
    total_rounds: int,
    colour: Colour,
    absent: Iterable[int] = (),
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
    return Tournament(players, total_rounds, colour, {}, set(absent))


def pair_next(
    size: int,
    rounds: Mapping[int, Sequence[SeatRound]],
    total_rounds: int,
    acceleration: str,
    colour: Colour,
    absent: Iterable[int] = (),
) -> Pairing:
    """Pair the round after those in ``rounds`` (every seat's list has one entry a round)."""
    lengths = {len(r) for r in rounds.values()} or {0}
    if len(lengths) != 1:
        raise PairingError("every seat needs a record of every round played so far")
    round_number = lengths.pop() + 1
    state = tournament_state(size, rounds, total_rounds, colour, absent)
    return pair_round(state, round_number, Acceleration(acceleration))


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
