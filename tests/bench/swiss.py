"""Swiss and format-lab benchmarks (no database): the Dutch engine pairing a later round of
150, 500 and 1,000 players, and the format lab's time per simulated tournament of each kind.

The rounds before the timed one are played out with the format lab's fast pairing and its
result model (seeded), so a big field's history costs seconds, not the exact engine's minutes;
the exact engine then pairs the next round from that history, as ``swiss_pair`` would from a
TRF. The FIDE-endorsed C++ engine takes about 0.13 s for a later round of 150 players, 0.8 s
for 300, 5.7 s for 500 and 42 s for 1,000 (issue 15); the target is no worse than 10× that.
``BENCH_SWISS_SIZES`` (e.g. ``150,500``) picks the fields.
"""

from __future__ import annotations

import os
import time

from apps.silli.lab import (
    LabConfig,
    RoundRobinFormat,
    SilliFormat,
    SwissFormat,
    parse_field,
    parse_qualification,
)
from apps.silli.lab import run as run_lab
from apps.silli.lab.results import play_game, results_rng
from apps.silli.lab.swiss import ExactSwiss, SwissState, pair_fast
from apps.silli.swiss.acceleration import Acceleration
from apps.silli.swiss.dutch import pair_round

# (players, total rounds, rounds played before the timed one)
FIELDS = {150: (9, 6), 500: (11, 7), 1000: (11, 7)}
REFERENCE = {150: 0.13, 500: 5.7, 1000: 42.0}  # the C++ engine's seconds (issue 15)


def _history(players: int, rounds: int, played: int) -> ExactSwiss:
    ratings = sorted(parse_field(f"model1:{players}").ratings, reverse=True)
    state = SwissState(ratings, rounds, Acceleration.NONE)
    exact = ExactSwiss(state)
    chance = results_rng("bench", f"swiss {players}")
    for round_number in range(1, played + 1):
        pairing = pair_fast(state, round_number)
        for white, black in pairing.pairs:
            result = play_game(ratings[white], ratings[black], chance.random())
            state.record(white, black, result)
            exact.record(white, black, result)
        if pairing.bye is not None:
            state.record_bye(pairing.bye)
            exact.record_bye(pairing.bye)
    return exact


def run() -> list[tuple[str, float, str]]:
    sizes = [int(s) for s in os.environ.get("BENCH_SWISS_SIZES", "150,500,1000").split(",")]
    rows = []
    for players in sizes:
        rounds, played = FIELDS.get(players, (11, 7))
        exact = _history(players, rounds, played)
        start = time.perf_counter()
        pairing = pair_round(exact.tournament, played + 1, Acceleration.NONE)
        seconds = time.perf_counter() - start
        reference = REFERENCE.get(players)
        ratio = f"; {seconds / reference:.1f}× the C++ engine's {reference} s" if reference else ""
        rows.append(
            (
                f"Dutch: round {played + 1} of {rounds}, {players} players",
                seconds,
                f"{len(pairing.pairs)} pairs, bye {pairing.bye or '-'}{ratio}",
            )
        )
    top20 = parse_qualification("top:20%")
    for label, spec, fmt, rule in (
        ("lab: Swiss 432 × 9 rounds (fast pairing)", "model1:432", SwissFormat(9), None),
        ("lab: Swiss 432 × 9 rounds, Baku", "model1:432", SwissFormat(9, Acceleration.BAKU), None),
        ("lab: round robins, 432 in groups of 12", "model1:432", RoundRobinFormat(12), None),
        ("lab: Silli, 3,000 in groups of 100, 10 games", "model1:3000", SilliFormat(100, 10), None),
        (
            "lab: the same, top 20 % of each group qualify",
            "model1:3000",
            SilliFormat(100, 10),
            top20,
        ),
    ):
        config = LabConfig(parse_field(spec), fmt, "bench", qualification=rule, top=0)
        start = time.perf_counter()
        run_lab(config, 5)
        rows.append((label, (time.perf_counter() - start) / 5, "a tournament, one process"))
    return rows
