"""python manage.py make_entrants --count N --seed TEXT --out FILE.csv"""

from __future__ import annotations

from collections import Counter

from django.core.management.base import BaseCommand, CommandParser

from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.management.engine_io import Failure, write_atomically


class Command(BaseCommand):
    help = "Write realistic synthetic entrants (skewed nations, ratings, multi-entry persons)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--seed", default="closed-circle")
        parser.add_argument("--nations", type=int, default=60)
        parser.add_argument("--largest-share", type=float, default=0.12)
        parser.add_argument("--multi-entry-share", type=float, default=0.03)
        parser.add_argument("--out", required=True)

    def handle(self, *args, **opts) -> None:
        try:
            entrants = make_entrants(
                opts["count"],
                opts["seed"],
                nations=opts["nations"],
                largest_share=opts["largest_share"],
                multi_entry_share=opts["multi_entry_share"],
            )
        except ValueError as exc:
            raise Failure(str(exc)) from exc
        write_atomically(opts["out"], entrants_csv(entrants))
        nations = Counter(e.nation for e in entrants)
        nation, largest = nations.most_common(1)[0]
        persons = Counter(e.person for e in entrants)
        self.stdout.write(
            f"{len(entrants)} entrants of {len(nations)} nations (largest {nation}: {largest}), "
            f"{sum(1 for k in persons.values() if k > 1)} persons with several entries "
            f"→ {opts['out']}"
        )
