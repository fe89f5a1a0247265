"""Swiss and format-lab benchmarks (no database): the Dutch engine pairing the worst later round
of 150, 500 and 1,000 players beside bbpPairings (the FIDE-endorsed C++ engine) on the same TRF
file, and the format lab's time per simulated tournament of each kind.

**The file.**  The rounds before the timed one are played out with the format lab's fast
pairing and its result model (seeded), so a big field's history costs seconds; the state is
written as a TRF file (``XXR``, ``XXC``), which both engines pair: ours as ``swiss_pair`` does
(TRF text read, :func:`pair_round`), bbpPairings as ``--dutch FILE -p``.

**The round.**  Round 2 (``BENCH_SWISS_ROUND``): after round 1 the field is in three score
groups of about N/2, a few and N/2 players, so the brackets' matchings are the largest any
round has (dense graphs of ~N/2 vertices, the transposition tie-break ~N/2 digits long); later
rounds split the field into more, smaller groups.  Measured per round on a 300-player
tournament of bbpPairings' own generator (rounds 2-9, see docs/swiss.md), round 2 was our
slowest and our worst ratio to bbpPairings (whose time hardly depends on the round).

**The floor.**  With ``BENCH_BBP=/path/to/bbpPairings.exe`` each field size is paired by both
engines, alternating, ``BENCH_SWISS_REPEAT`` times (default 3): the figure is our minimum CPU
time (the machine is shared: CPU seconds are steadier than wall seconds), the detail gives
bbpPairings' (its process's CPU time) beside it, the ratio of the minima, the medians, and
whether the two pairings agree (pairs, colours, bye).  Without it the floor is not measured
and the row says so.  ``BENCH_SWISS_SIZES`` (e.g. ``150,500``) picks the fields.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

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
from apps.silli.swiss.dutch import Pairing, pair_round
from apps.silli.swiss.trf import Tournament, decode_trf, parse_trf
from tests.silli.swiss.reference import _compare, parse_pairs

ROUNDS = 9  # the tournament's rounds (XXR)


def _history(players: int, played: int) -> Tournament:
    ratings = sorted(parse_field(f"model1:{players}").ratings, reverse=True)
    state = SwissState(ratings, ROUNDS, Acceleration.NONE)
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
    return exact.tournament


def trf_text(tournament: Tournament) -> str:
    """The tournament as a TRF file (the columns bbpPairings and :func:`parse_trf` read)."""
    lines = ["012 Closed Circle Swiss benchmark"]
    for number in sorted(tournament.players):
        player = tournament.players[number]
        points = sum(cell.half_points for cell in player.rounds) / 2
        head = f"001 {number:4d}      {player.name:<34}{player.rating:4d}".ljust(80)
        head += f"{points:4.1f} {number:4d}  "
        cells = []
        for cell in player.rounds:
            if cell.opponent is None:
                cells.append(f"0000 - {cell.result}  ")
            else:
                colour = cell.colour.value if cell.colour is not None else "-"
                cells.append(f"{cell.opponent:4d} {colour} {cell.result}  ")
        lines.append((head + "".join(cells)).rstrip())
    lines.append(f"XXR {tournament.total_rounds}")
    lines.append("XXC white1")
    return "\r\n".join(lines) + "\r\n"


def _ours(data: bytes, round_number: int) -> tuple[float, Pairing]:
    start = time.process_time()
    pairing = pair_round(parse_trf(decode_trf(data)), round_number)
    return time.process_time() - start, pairing


def _bbp(binary: str, path: Path) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [binary, "--dutch", str(path), "-p"], capture_output=True, text=True, check=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return used, done.stdout


def dutch_rows(sizes: list[int], round_number: int, repeat: int) -> list[tuple[str, float, str]]:
    binary = os.environ.get("BENCH_BBP")
    rows = []
    for players in sizes:
        data = trf_text(_history(players, round_number - 1)).encode("latin-1")
        label = f"Dutch: round {round_number} of {ROUNDS}, {players} players"
        ours: list[float] = []
        floor: list[float] = []
        agree = ""
        with tempfile.TemporaryDirectory(prefix="bench_swiss_") as folder:
            path = Path(folder) / f"swiss{players}.trf"
            path.write_bytes(data)
            for _ in range(repeat):
                seconds, pairing = _ours(data, round_number)
                ours.append(seconds)
                if binary:
                    used, output = _bbp(binary, path)
                    floor.append(used)
                    want, bye = parse_pairs(output)
                    problem = _compare(pairing, want, bye)
                    agree = "same pairing" if not problem else f"PAIRINGS DIFFER: {problem}"
        size = (
            f"{len(pairing.pairs)} pairs, CPU s, min of {repeat} "
            f"(median {statistics.median(ours):.2f})"
        )
        if binary:
            detail = (
                f"{size}; bbpPairings {min(floor):.2f} s (median {statistics.median(floor):.2f}) "
                f"on the same file: {min(ours) / min(floor):.2f}× the floor; {agree}"
            )
        else:
            detail = f"{size}; floor not measured (set BENCH_BBP to bbpPairings.exe)"
        rows.append((label, min(ours), detail))
    return rows


def run() -> list[tuple[str, float, str]]:
    sizes = [int(s) for s in os.environ.get("BENCH_SWISS_SIZES", "150,500,1000").split(",")]
    round_number = int(os.environ.get("BENCH_SWISS_ROUND", "2"))
    repeat = int(os.environ.get("BENCH_SWISS_REPEAT", "3"))
    rows = dutch_rows(sizes, round_number, repeat)
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
