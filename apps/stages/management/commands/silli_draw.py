"""python manage.py silli_draw --entrants FILE.csv --games G --seed TEXT --out DRAW.json"""

from __future__ import annotations

from collections import Counter

from django.core.management.base import BaseCommand, CommandParser

from apps.silli.draw import SILLI, DrawError, DrawSettings, draw_stage
from apps.silli.formula import formula_text
from apps.silli.systems import SYSTEMS

from ..engine_io import Failure, load_earlier_groups, load_entrants, load_pairs, write_atomically
from .silli_formula import parse_formula


class Command(BaseCommand):
    help = "Draw one stage with the Silli engine and write DRAW.json (no database needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--entrants", required=True, help="entrant CSV")
        parser.add_argument("--games", type=int, required=True, help="games per player")
        parser.add_argument("--seed", required=True, help="the published seed text")
        parser.add_argument("--min-group-size", type=int, default=100)
        parser.add_argument("--format", choices=tuple(SYSTEMS), default=SILLI)
        parser.add_argument("--no-separate-nations", action="store_true")
        parser.add_argument("--met-before", help="CSV a,b of entrant codes that already met")
        parser.add_argument("--no-avoid-rematches", action="store_true")
        parser.add_argument("--earlier-groups", help="CSV code,group of the previous stage")
        parser.add_argument("--double", action="store_true", help="double round robin")
        parser.add_argument("--balance-ratings", action="store_true")
        parser.add_argument("--odd", action="store_true", help="use the all-odd family")
        parser.add_argument("--formula", help="a formula given by hand, e.g. 1,4,10,17,32")
        parser.add_argument(
            "--allow-nation-games",
            type=int,
            default=0,
            help="same-nation games allowed per group (listed in the certificate)",
        )
        parser.add_argument("--out", required=True, help="where to write DRAW.json")

    def handle(self, *args, **opts) -> None:
        entrants = load_entrants(opts["entrants"])
        pairs = load_pairs(opts["met_before"])
        earlier = load_earlier_groups(opts["earlier_groups"])
        try:
            settings = DrawSettings(
                games_per_player=opts["games"],
                format=opts["format"],
                min_group_size=opts["min_group_size"],
                separate_nations=not opts["no_separate_nations"],
                avoid_rematches=not opts["no_avoid_rematches"],
                double_round_robin=opts["double"],
                balance_ratings=opts["balance_ratings"],
                odd=opts["odd"],
                formula=parse_formula(opts["formula"]) if opts["formula"] else None,
                allowed_nation_games=opts["allow_nation_games"],
            )
            draw = draw_stage(entrants, settings, opts["seed"], pairs, earlier)
        except (DrawError, ValueError) as exc:
            raise Failure(f"{exc} Nothing was written.") from exc
        write_atomically(opts["out"], draw.to_json())
        shapes = Counter(
            (g.size, formula_text(g.formula) or "round robin", g.rule) for g in draw.groups
        )
        self.stdout.write(f"{len(entrants)} entrants, {len(draw.groups)} groups:")
        for (size, formula, rule), count in sorted(shapes.items(), key=lambda kv: -kv[0][0]):
            self.stdout.write(f"  {count} × {size} seats, {formula} ({rule})")
        conflicts = sum(len(g.conflicts) for g in draw.groups)
        if conflicts:
            self.stdout.write(f"  {conflicts} listed conflict(s) (see each group's certificate)")
        self.stdout.write(f"digest {draw.digest}")
        self.stdout.write(f"written to {opts['out']}")
