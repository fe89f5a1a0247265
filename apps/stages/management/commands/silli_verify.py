"""python manage.py silli_verify DRAW.json --entrants FILE.csv [--met-before PAIRS.csv]"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.silli.verify import verify_draw

from ..engine_io import Failure, load_earlier_groups, load_entrants, load_pairs, read_text


class Command(BaseCommand):
    help = "Re-run a published draw, compare digests and check every constraint."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("draw", help="DRAW.json")
        parser.add_argument("--entrants", required=True, help="entrant CSV")
        parser.add_argument("--met-before", help="CSV a,b of entrant codes that already met")
        parser.add_argument("--earlier-groups", help="CSV code,group of the previous stage")

    def handle(self, *args, **opts) -> None:
        try:
            data = json.loads(read_text(opts["draw"]))
        except json.JSONDecodeError as exc:
            raise Failure(f"{opts['draw']} is not JSON: {exc}") from exc
        report = verify_draw(
            data,
            load_entrants(opts["entrants"]),
            load_pairs(opts["met_before"]),
            load_earlier_groups(opts["earlier_groups"]),
        )
        identical = "identical" if report.identical else "NOT identical"
        self.stdout.write(f"re-run from seed {data.get('seed')!r}: {identical}")
        if report.problems:
            for problem in report.problems:
                self.stdout.write(f"  problem: {problem}")
            raise CommandError(
                f"verification failed: {len(report.problems)} problem(s)", returncode=1
            )
        self.stdout.write(
            f"constraints: all hold ({len(data['groups'])} groups checked: sizes, seats, "
            "formulas, colours, principles, forbidden pairs, persons, nation spread)"
        )
        self.stdout.write(f"digest {data['digest']}: verified")
