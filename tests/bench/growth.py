"""Growth: the app benchmark at 10,000, 30,000 and 100,000 entrants, each step's time side by
side, and how it grows with the field.

Each size runs ``python -m tests.bench --only app`` in a process of its own (its database,
``BENCH_DATABASE``, is emptied before and after as usual; ``BENCH_ONE_BY_ONE=0``: the
one-by-one recompute of every group is left out). For every step printed at every size the
line gives the seconds at each size and the *exponent* of its growth between the smallest and
the largest field, ``log(t_large / t_small) / log(large / small)``: 1 is linear (ten times the
entrants, ten times the time), 0 is a step whose work does not depend on the field (one
group's recompute, one page of the ranking), above 1 grows faster than the field. Steps far
under a tenth of a second are noise at this resolution and are marked so.

``BENCH_GROWTH_SIZES`` (e.g. ``10000,30000``) picks the fields.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES = [int(n) for n in (os.environ.get("BENCH_GROWTH_SIZES") or "10000,30000,100000").split(",")]
LINE = re.compile(r"^app\s+(?P<label>.+?)\s+(?P<seconds>\d+\.\d{3}) s {3}")
NOISE = 0.1  # seconds: below this at the largest size a step's exponent means little
SUPERLINEAR = 1.2


def parse(output: str, size: int) -> dict[str, float]:
    """The app benchmark's lines as {step: seconds}; the field's size in a label becomes N,
    so a step is named alike at every size."""
    steps: dict[str, float] = {}
    for line in output.splitlines():
        found = LINE.match(line)
        if found:
            label = found["label"].strip().replace(f"{size:,}", "N")
            steps[label] = float(found["seconds"])
    return steps


def exponent(small: tuple[int, float], large: tuple[int, float]) -> float | None:
    """The growth exponent between two (size, seconds); None when a time is zero."""
    (n1, t1), (n2, t2) = small, large
    if t1 <= 0 or t2 <= 0 or n1 == n2:
        return None
    return math.log(t2 / t1) / math.log(n2 / n1)


def _app(size: int) -> str:
    env = {**os.environ, "BENCH_ENTRANTS": str(size), "BENCH_ONE_BY_ONE": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench", "--only", "app"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"the app benchmark at {size:,} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def run() -> list[tuple[str, float, str]]:
    sizes = sorted(SIZES)
    runs = {size: parse(_app(size), size) for size in sizes}
    steps = [label for label in runs[sizes[-1]] if all(label in runs[n] for n in sizes)]
    lines = []
    for label in steps:
        times = [(n, runs[n][label]) for n in sizes]
        if not any(t for _, t in times):  # a step left out (e.g. BENCH_ONE_BY_ONE=0)
            continue
        k = exponent(times[0], times[-1])
        figures = " · ".join(f"{n:,}: {t:.3f} s" for n, t in times)
        if k is None:
            verdict = "no exponent (a time of 0)"
        elif times[-1][1] < NOISE:
            verdict = f"exponent {k:.2f} (under {NOISE} s: noise)"
        else:
            verdict = f"exponent {k:.2f}" + (" SUPERLINEAR" if k > SUPERLINEAR else "")
        lines.append((f"growth: {label}", times[-1][1], f"{figures}; {verdict} (1 = linear)"))
    return lines
