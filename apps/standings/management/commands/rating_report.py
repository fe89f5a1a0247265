"""``rating_report FILE.trf [--rating-games N]``: the FIDE rating report of a TRF file as JSON."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.ratings.report import RatingLine, rating_report

from ..ratings_io import json_array, read_trf_players

EXPECTED_PLACES = Decimal("0.01")


def line_json(line: RatingLine) -> dict[str, object]:
    """One player's object of the report (docs/interfaces.md §7)."""
    expected = None
    if line.expected is not None:
        expected = float(line.expected.quantize(EXPECTED_PLACES, rounding=ROUND_HALF_UP))
    return {
        "id": line.id,
        "rating": line.rating,
        "games": len(line.games),
        "score": float(line.score),
        "expected": expected,
        "k": line.k,
        "change": None if line.change is None else float(line.change),
        "new_rating": None if line.new_rating is None else float(line.new_rating),
        "provisional": line.provisional,
    }


class Command(BaseCommand):
    help = (
        "The rating report of a FIDE TRF file by FIDE's rules, as a JSON array with one object "
        "per player: id, rating, games, score, expected, k, change, new_rating, provisional. "
        "Ratings come from the 001 lines; only played games (1 = 0) against rated opponents "
        "count. Exit status 2 for a bad file."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the TRF file")
        parser.add_argument(
            "--rating-games",
            type=int,
            default=30,
            help="rated games every player had before the event, for K (default 30: "
            "K by rating; below 30 K is 40)",
        )

    def handle(self, *args, **options) -> None:
        if options["rating_games"] < 0:
            raise CommandError(
                f"--rating-games is a number of games, not {options['rating_games']}",
                returncode=2,
            )
        players = read_trf_players(options["file"], options["rating_games"])
        lines = rating_report(players)
        self.stdout.write(json_array([line_json(line) for line in lines]), ending="")
