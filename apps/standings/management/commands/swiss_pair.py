"""``swiss_pair FILE.trf [--out FILE]``: the next round of a Swiss tournament, FIDE Dutch system.

Writes the plain format FIDE's pairing checkers use: the number of pairs on the first line, then
"white black" start ranks, one pair a line, the pairing-allocated bye as "N 0".  Exit status 2,
with a sentence saying why, for a malformed file or a round with no legal pairing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from apps.silli.swiss.acceleration import Acceleration
from apps.silli.swiss.dutch import PairingError, format_pairing, pair_round
from apps.silli.swiss.trf import TrfError, decode_trf, parse_trf


class Command(BaseCommand):
    help = (
        "Pair the next round of a TRF file by the FIDE (Dutch) system and write it as the "
        "pairing checkers read it: the number of pairs, then 'white black' per line, a bye 'N 0'."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the TRF file (XXR total rounds, XXC white1/black1, XXA)")
        parser.add_argument("--out", help="write here instead of to stdout")
        parser.add_argument(
            "--round",
            type=int,
            help="pair this round from the rounds before it (default: the first unpaired round)",
        )
        parser.add_argument(
            "--acceleration",
            choices=[a.value for a in Acceleration],
            default=Acceleration.NONE.value,
            help="virtual points: none (XXA lines only), baku (C.04.5.1) or general",
        )

    def fail(self, message: str) -> None:
        self.stderr.write(message)
        sys.exit(2)

    def handle(self, *args, **options):
        name = options["file"]
        try:
            text = decode_trf(Path(name).read_bytes())
        except OSError as error:
            self.fail(f"cannot read {name}: {error.strerror}")
        try:
            tournament = parse_trf(text)
        except TrfError as error:
            self.fail(f"{name}: {error}")
        if options["round"] is not None:
            if options["round"] < 1:
                self.fail(f"--round must be at least 1, not {options['round']}")
            tournament = tournament.truncated(options["round"] - 1)
        try:
            pairing = pair_round(
                tournament,
                round_number=options["round"],
                acceleration=Acceleration(options["acceleration"]),
            )
        except PairingError as error:
            self.fail(f"{name}: {error}")
        output = format_pairing(pairing)
        if options["out"]:
            try:
                Path(options["out"]).write_text(output)
            except OSError as error:
                self.fail(f"cannot write {options['out']}: {error.strerror}")
        else:
            self.stdout.write(output, ending="")
