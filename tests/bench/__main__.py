"""python -m tests.bench [--only NAME ...]: run the benchmarks and print their timings."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from . import (
    app,
    engine,
    growth,
    imports,
    load,
    play_moves,
    play_sweep,
    rating_list_import,
    standings,
    swiss,
    worker,
)

BENCHMARKS: dict[str, Callable[[], list[tuple[str, float, str]]]] = {
    "engine": engine.run,
    "swiss": swiss.run,
    "standings": standings.run,
    "app": app.run,
    "import": imports.run,
    "worker": worker.run,
    "growth": growth.run,
    "load": load.run,
    "ratinglists": rating_list_import.run,
    "play": play_moves.run,
    "play_sweep": play_sweep.run,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", choices=sorted(BENCHMARKS), help="benchmarks to run")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    print(
        f"# Closed Circle benchmarks — {time.strftime('%Y-%m-%d %H:%M:%S')}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {_load()}"
    )
    for name in args.only or list(BENCHMARKS):
        for label, seconds, detail in BENCHMARKS[name]():
            # Steps of milliseconds in milliseconds, the others in seconds.
            shown = f"{seconds * 1000:9.3f} ms" if 0 < seconds < 0.1 else f"{seconds:9.3f} s "
            print(f"{name:10s} {label:58s} {shown}  {detail}")
            sys.stdout.flush()
        # Figures on a shared machine mean little without what else ran beside them.
        print(f"{name:10s} {'(done)':58s} {'':9s}     {time.strftime('%H:%M:%S')}, {_load()}")
    return 0


def _load() -> str:
    """The machine's load averages (1, 5, 15 minutes), as uptime prints them."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} / {fifteen:.1f}"


if __name__ == "__main__":
    raise SystemExit(main())
