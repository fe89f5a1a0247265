"""python manage.py format_lab: simulate a stage format many times and print its measures.

    format_lab --field model1:432 --format swiss --rounds 9 --acceleration baku \\
        --tournaments 1000 --seed S --json
    format_lab --field model1:3000 --format silli --group-size 100 --games 10 \\
        --qualify top:20% --tournaments 1000 --workers 2 --json
    format_lab --entrants entrants.csv --format round_robin --group-size 12 --json

The engine is :mod:`apps.silli.lab`; this command only parses, runs and prints. With
``--workers`` the tournaments are spread over processes; each tournament depends only on the
seed and its index and the tallies are whole numbers, so the output is the same for any
number of workers.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from apps.silli.entrants import EntrantCsvError, parse_entrants_csv
from apps.silli.formats import Format
from apps.silli.lab import (
    FieldError,
    FormatError,
    LabConfig,
    LabFormat,
    LabReport,
    RoundRobinFormat,
    SilliFormat,
    SwissFormat,
    entrants_field,
    parse_field,
    parse_qualification,
)
from apps.silli.lab.engine import finish, simulate
from apps.silli.lab.formats import TIEBREAKS
from apps.silli.lab.measures import Tally
from apps.silli.lab.results import FORM_SD
from apps.silli.lab.swiss import ENGINES
from apps.silli.swiss.acceleration import Acceleration

CHUNKS_PER_WORKER = 4


def _chunk(args: tuple[LabConfig, int, int]) -> Tally:
    config, start, stop = args
    return simulate(config, start, stop)


class Command(BaseCommand):
    help = "Simulate a format on a field many times and print fairness measures (issue 16)."

    def add_arguments(self, parser) -> None:
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--field", help="model1:N, model2:N or linear:N:LOW:HIGH")
        where.add_argument("--entrants", help="an entrant CSV file (every entrant rated)")
        parser.add_argument("--format", choices=[f.value for f in Format], required=True)
        parser.add_argument("--group-size", type=int, help="silli: 100, round_robin: 12")
        parser.add_argument("--games", type=int, default=10, help="silli: games per player")
        parser.add_argument("--double", action="store_true", help="double round robin")
        parser.add_argument("--balance-ratings", action="store_true", help="silli division")
        parser.add_argument("--rounds", type=int, default=9, help="swiss: rounds")
        parser.add_argument(
            "--acceleration", choices=[a.value for a in Acceleration], default="none"
        )
        parser.add_argument("--engine", choices=ENGINES, default="fast", help="swiss pairing")
        parser.add_argument("--tiebreak", choices=TIEBREAKS)
        parser.add_argument("--qualify", help="top:K, top:P%%, overall:K or overall:P%%")
        parser.add_argument("--top", type=int, default=10, help="top-rated players to follow")
        parser.add_argument(
            "--form-sd",
            type=float,
            default=FORM_SD,
            help=f"σ of a player's form in a tournament, points (default {FORM_SD:g}; 0: none)",
        )
        parser.add_argument("--tournaments", type=int, default=100)
        parser.add_argument("--seed", default="format-lab")
        parser.add_argument("--workers", type=int, default=1, help="processes (0: all cores)")
        parser.add_argument("--json", action="store_true", help="print the full report as JSON")
        parser.add_argument("--timing", action="store_true", help="time taken, on stderr")

    def handle(self, *args, **opts) -> None:
        config = self._config(opts)
        tournaments = opts["tournaments"]
        if tournaments < 1:
            raise CommandError("--tournaments must be at least 1")
        workers = opts["workers"] or multiprocessing.cpu_count()
        started = time.perf_counter()
        try:
            tally = run_parallel(config, tournaments, max(1, workers))
        except ValueError as exc:  # a draw that cannot be made (DrawError, DivisionError)
            raise CommandError(str(exc)) from exc
        seconds = time.perf_counter() - started
        report = finish(config, tally)
        if opts["json"]:
            self.stdout.write(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
        else:
            self.stdout.write(summary(report))
        if opts["timing"]:
            sys.stderr.write(
                f"{tournaments} tournaments in {seconds:.1f} s "
                f"({seconds / tournaments * 1000:.1f} ms each, {workers} worker(s))\n"
            )

    def _config(self, opts: dict[str, Any]) -> LabConfig:
        try:
            if opts["field"]:
                fld = parse_field(str(opts["field"]))
            else:
                path = Path(str(opts["entrants"]))
                fld = entrants_field(parse_entrants_csv(path.read_text("utf-8")), path.name)
            fmt = _format(opts)
            rule = opts["qualify"]
            qualification = parse_qualification(str(rule)) if rule else None
            return LabConfig(
                fld,
                fmt,
                str(opts["seed"]),
                qualification,
                int(opts["top"]),
                form_sd=float(opts["form_sd"]),
            )
        except (FieldError, FormatError, EntrantCsvError, OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc


def _silli(opts: dict[str, Any], extra: dict[str, Any]) -> SilliFormat:
    return SilliFormat(
        group_size=int(opts["group_size"] or 100),
        games=int(opts["games"]),
        balance_ratings=bool(opts["balance_ratings"]),
        **extra,
    )


def _round_robin(opts: dict[str, Any], extra: dict[str, Any]) -> RoundRobinFormat:
    return RoundRobinFormat(
        group_size=int(opts["group_size"] or 12), double=bool(opts["double"]), **extra
    )


def _swiss(opts: dict[str, Any], extra: dict[str, Any]) -> SwissFormat:
    return SwissFormat(
        rounds=int(opts["rounds"]),
        acceleration=Acceleration(opts["acceleration"]),
        engine=str(opts["engine"]),
        **extra,
    )


# Each format from the command's options (and the tie-break, when one is given).
FORMATS: dict[Format, Callable[[dict[str, Any], dict[str, Any]], LabFormat]] = {
    Format.SILLI: _silli,
    Format.ROUND_ROBIN: _round_robin,
    Format.SWISS: _swiss,
}


def _format(opts: dict[str, Any]) -> LabFormat:
    extra: dict[str, Any] = {"tiebreak": opts["tiebreak"]} if opts["tiebreak"] else {}
    return FORMATS[Format(opts["format"])](opts, extra)


def run_parallel(config: LabConfig, tournaments: int, workers: int) -> Tally:
    """The tally of tournaments 0..tournaments-1, over ``workers`` processes."""
    if workers == 1:
        return simulate(config, 0, tournaments)
    size = max(1, -(-tournaments // (workers * CHUNKS_PER_WORKER)))
    chunks = [(config, s, min(s + size, tournaments)) for s in range(0, tournaments, size)]
    total = config.new_tally()
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for part in pool.imap(_chunk, chunks):
            total.merge(part)
    return total


def summary(report: LabReport) -> str:
    """The main measures as text."""
    m = report.measures
    lines = [
        f"{report.field}, {report.format.to_json()}, qualify {report.qualify}, "
        f"seed {report.seed}, form σ {report.form_sd:g}: "
        f"{m.tournaments} tournaments",
        "games with a rating difference over: "
        + ", ".join(f"{t}: {100 * v:.2f}%" for t, v in m.share_rating_diff_over.items()),
        f"mean opponent difference {m.mean_opponent_diff}, worst round {m.max_opponent_diff}",
        f"positive jumps: sum {m.sum_pos_jump}, max {m.max_pos_jump}",
        f"expectation {m.expectation}",
        f"games per tournament {m.games_per_tournament}, calendar {m.calendar.to_json()}",
    ]
    for row in m.top_rated:
        q = row.qualifies
        lines.append(
            f"  rating rank {row.rank} ({row.rating}): top {m.top} "
            f"{100 * row.finish_top:.1f}%"
            + (f", qualifies {100 * q:.1f}%" if q is not None else "")
        )
    return "\n".join(lines)
