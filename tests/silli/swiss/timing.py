"""Time the pairing of a later round on random tournaments:
.venv/bin/python tests/silli/swiss/timing.py"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from simulate import simulate  # noqa: E402

from apps.silli.swiss.dutch import pair_round  # noqa: E402

for players, rounds, played in (
    [(150, 9, 6), (500, 11, 7)]
    if len(sys.argv) < 2
    else [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]]
):
    start = time.perf_counter()
    tournament, _ = simulate(players, rounds, seed=players, upto=played)
    built = time.perf_counter() - start
    start = time.perf_counter()
    pairing = pair_round(tournament)
    seconds = time.perf_counter() - start
    print(
        f"{players} players, round {pairing.round_number} of {rounds}: {seconds:.2f} s "
        f"({len(pairing.pairs)} pairs; simulating rounds 1-{played} took {built:.1f} s)",
        flush=True,
    )
