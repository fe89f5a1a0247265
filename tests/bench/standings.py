"""Standings benchmark: the tie-breaks of one 104-player Silli group (520 games) with both
chains, through the public API (``compute_figures`` + ``rank``: Players in, Fractions out) and
the compact one a standings recompute runs (``figure_table`` + ``rank_table``: integer records
in, integer columns out)."""

from __future__ import annotations

import time

from apps.scoring.tiebreaks import (
    BUCHHOLZ,
    OUTCOME_CODE,
    TORINO,
    Colour,
    Game,
    Key,
    Outcome,
    Player,
    Record,
    Unplayed,
    compute_figures,
    figure_table,
    rank,
    rank_table,
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


def compact(players: list[Player]) -> list[list[Record]]:
    """The players' games as ``figure_table`` takes them."""
    index = {p.id: i for i, p in enumerate(players)}
    return [
        [
            (
                -1 if g.opponent is None else index[g.opponent],
                OUTCOME_CODE[g.outcome],
                g.played,
                g.colour is Colour.BLACK,
            )
            for g in p.games
        ]
        for p in players
    ]


def run() -> list[tuple[str, float, str]]:
    players = silli_group()
    records, ids = compact(players), [p.id for p in players]
    fide = Unplayed.FIDE2024
    timings = {}
    for label, recompute in (
        ("torino", lambda: rank(compute_figures(players, 10), TORINO)),
        (
            "buchholz fide2024 + SB",
            lambda: rank(compute_figures(players, 10, unplayed=fide), BUCHHOLZ + (Key.SB,)),
        ),
        ("torino, compact", lambda: rank_table(figure_table(records, 10, ids=ids), TORINO)),
        (
            "buchholz fide2024 + SB, compact",
            lambda: rank_table(
                figure_table(records, 10, ids=ids, unplayed=fide), BUCHHOLZ + (Key.SB,)
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
        (
            f"tie-breaks of a 104-player group, {label}",
            seconds,
            f"{seconds * 1000:.2f} ms; 520 games, best of 15",
        )
        for label, seconds in timings.items()
    ]
