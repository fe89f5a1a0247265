"""python -m tests.bench [--only NAME ...]: run the benchmarks and print their timings."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from . import app, engine, load, play_moves, standings, swiss, worker

BENCHMARKS: dict[str, Callable[[], list[tuple[str, float, str]]]] = {
    "engine": engine.run,
    "swiss": swiss.run,
    "standings": standings.run,
    "app": app.run,
    "worker": worker.run,
    "load": load.run,
    "play": play_moves.run,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", choices=sorted(BENCHMARKS), help="benchmarks to run")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    print(
        f"# Closed Circle benchmarks — {time.strftime('%Y-%m-%d %H:%M:%S')}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"
    )
    for name in args.only or list(BENCHMARKS):
        for label, seconds, detail in BENCHMARKS[name]():
            print(f"{name:10s} {label:58s} {seconds:9.3f} s   {detail}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
