"""python manage.py cc_clock FILE.json"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser

from apps.clock.engine import clock_report
from apps.clock.files import ClockFileError, parse_clock_file, report_as_json

from ..engine_io import Failure, read_text


class Command(BaseCommand):
    help = (
        "The correspondence clock of one game: days used and charged per move, each player's "
        "days left, and who lost on time (docs/clock.md; the file: docs/interfaces.md §8)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the game as JSON: control, start, moves, leave, now")

    def handle(self, *args, **opts) -> None:
        path = opts["file"]
        try:
            asked = parse_clock_file(read_text(path))
        except ClockFileError as exc:
            raise Failure(f"{path}: {exc}.") from exc
        report = clock_report(asked.control, asked.game, asked.now)
        self.stdout.write(json.dumps(report_as_json(report)))
