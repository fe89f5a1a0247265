"""``norms FILE.trf --level IM``: title-norm figures of a TRF file as JSON."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from apps.ratings.norms import NORM_LEVELS, NormFigure, norm_figures

from ..ratings_io import json_array, read_trf_players


def figure_json(figure: NormFigure) -> dict[str, object]:
    """One player's object of the norm figures (docs/interfaces.md §7)."""
    return {
        "id": figure.id,
        "games": figure.games,
        "score": float(figure.score),
        "requirement": float(figure.requirement),
        "norm": figure.achieved,
    }


class Command(BaseCommand):
    help = (
        "Title-norm figures of a FIDE TRF file by the individual method, as a JSON array with "
        "one object per player: id, games, score, requirement, norm. Ratings come from the 001 "
        "lines; only played games (1 = 0) against rated opponents count. Unofficial unless the "
        "event is a registered title tournament. Exit status 2 for a bad file."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the TRF file")
        parser.add_argument(
            "--level",
            required=True,
            choices=list(NORM_LEVELS),
            help=", ".join(f"{code} {level.rating}" for code, level in NORM_LEVELS.items()),
        )

    def handle(self, *args, **options) -> None:
        players = read_trf_players(options["file"], rated_games=0)
        figures = norm_figures(players, NORM_LEVELS[options["level"]])
        self.stdout.write(json_array([figure_json(f) for f in figures]), ending="")
