"""Standings benchmark: recompute one 104-player Silli group (520 games) with both chains."""

from __future__ import annotations

import time

from apps.scoring.tiebreaks import (
    BUCHHOLZ,
    TORINO,
    Colour,
    Game,
    Key,
    Outcome,
    Player,
    Unplayed,
    compute_figures,
    rank,
)
from apps.silli.circle import circle_games

REVERSED = {Outcome.WIN: Outcome.LOSS, Outcome.DRAW: Outcome.DRAW, Outcome.LOSS: Outcome.WIN}


def silli_group(size: int = 104, formula: tuple[int, ...] = (1, 4, 10, 17, 32)) -> list[Player]:
    """A finished closed circle with a forfeit now and then."""
    games: dict[int, list[Game]] = {seat: [] for seat in range(1, size + 1)}
    for white, black in circle_games(size, formula):
        outcome = (Outcome.WIN, Outcome.DRAW, Outcome.LOSS)[(white * 7 + black) % 3]
        played = (white + black) % 23 != 0
        games[white].append(Game(black, outcome, played, Colour.WHITE))
        games[black].append(Game(white, REVERSED[outcome], played, Colour.BLACK))
    return [Player(seat, games[seat]) for seat in games]


def run() -> list[tuple[str, float, str]]:
    players = silli_group()
    timings = {}
    for label, recompute in (
        ("torino", lambda: rank(compute_figures(players, 10), TORINO)),
        (
            "buchholz fide2024 + SB",
            lambda: rank(
                compute_figures(players, 10, unplayed=Unplayed.FIDE2024), BUCHHOLZ + (Key.SB,)
            ),
        ),
    ):
        best = float("inf")
        for _ in range(15):
            start = time.perf_counter()
            recompute()
            best = min(best, time.perf_counter() - start)
        timings[label] = best
    return [
        (f"recompute a 104-player group, {label}", seconds, "520 games, best of 15")
        for label, seconds in timings.items()
    ]
