"""Random Swiss tournaments played out with the engine itself (for properties and timings)."""

from __future__ import annotations

import random

from apps.silli.swiss.acceleration import Acceleration
from apps.silli.swiss.dutch import Pairing, pair_round
from apps.silli.swiss.trf import Colour, RoundCell, Tournament, TrfPlayer


def new_tournament(players: int, rounds: int) -> Tournament:
    return Tournament(
        {n: TrfPlayer(n, f"P{n}", 2400 - 7 * n, "0.0", [], n) for n in range(1, players + 1)},
        total_rounds=rounds,
        initial_colour=Colour.WHITE,
    )


def play(
    tournament: Tournament, pairing: Pairing, chance: random.Random, absent_rate: float = 0.0
) -> None:
    """Record results of a paired round; some players are marked absent for the next one."""
    r = pairing.round_number
    players = tournament.players
    for number in pairing.absent:
        cells = players[number].rounds
        while len(cells) < r:
            cells.append(RoundCell(None, None, "Z"))
    for white, black in pairing.pairs:
        x = chance.random()
        stronger = white if white < black else black
        if x < 0.03:
            w, b = "+", "-"
        elif x < 0.35:
            w = b = "="
        else:
            win_white = (chance.random() < 0.7) == (stronger == white)
            w, b = ("1", "0") if win_white else ("0", "1")
        for me, other, colour, res in (
            (white, black, Colour.WHITE, w),
            (black, white, Colour.BLACK, b),
        ):
            cells = players[me].rounds
            while len(cells) < r - 1:
                cells.append(RoundCell(None, None, "Z"))
            cells.append(RoundCell(other, colour, res))
    if pairing.bye is not None:
        cells = players[pairing.bye].rounds
        while len(cells) < r - 1:
            cells.append(RoundCell(None, None, "Z"))
        cells.append(RoundCell(None, None, "U"))
    if absent_rate and r < (tournament.total_rounds or 0):
        for _number, p in players.items():
            if len(p.rounds) == r and chance.random() < absent_rate:
                p.rounds.append(RoundCell(None, None, chance.choice("HZ")))


def simulate(
    players: int,
    rounds: int,
    seed: int,
    acceleration=Acceleration.NONE,
    absent_rate: float = 0.0,
    upto: int | None = None,
):
    """Play ``upto`` rounds (default all); returns the tournament and the pairings made."""
    chance = random.Random(seed)
    tournament = new_tournament(players, rounds)
    pairings = []
    for _ in range(upto if upto is not None else rounds):
        pairing = pair_round(tournament, acceleration=acceleration)
        pairings.append(pairing)
        play(tournament, pairing, chance, absent_rate)
    return tournament, pairings


def to_trf(tournament: Tournament) -> str:
    lines = ["012 simulated", f"XXR {tournament.total_rounds}", "XXC white1"]
    for number in sorted(tournament.players):
        p = tournament.players[number]
        points = sum(c.half_points for c in p.rounds) / 2
        line = f"001 {number:4d}      {p.name:<33.33} {p.rating:4d}" + " " * 28 + f"{points:4.1f}"
        line = line.ljust(91)
        cells = []
        for c in p.rounds:
            opp = f"{c.opponent:4d}" if c.opponent else "0000"
            col = c.colour.value if c.colour else "-"
            cells.append(f"{opp} {col} {c.result}")
        lines.append(line + "  ".join(cells))
    return "\n".join(lines) + "\n"
