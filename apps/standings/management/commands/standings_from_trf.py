from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.scoring.tiebreaks import SYSTEMS, CutVariant, Unplayed
from apps.scoring.trf.read import decode_trf, standings_csv, standings_from_trf


class Command(BaseCommand):
    help = (
        "Standings of a FIDE TRF file as CSV: id,points,games,gms,rgp,bh,bh_c1,bh_c2,ts,ts_c1,"
        "ts_median,rank, in standings order (a shared place reads 3-4). Points and Buchholz "
        "figures have one decimal (two when not a multiple of 1/2), TS figures two, rounded half "
        "up. T is --rounds, else the XXR line, else the number of round columns."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the TRF file")
        parser.add_argument("--system", choices=list(SYSTEMS), default="torino")
        parser.add_argument(
            "--variant", choices=[v.value for v in CutVariant], default=CutVariant.TARGET.value
        )
        parser.add_argument(
            "--unplayed", choices=[u.value for u in Unplayed], default=Unplayed.CLASSIC.value
        )
        parser.add_argument("--rounds", type=int, help="T, the games per player")
        parser.add_argument("--format", choices=["csv"], default="csv")

    def handle(self, *args, **options):
        try:
            text = decode_trf(Path(options["file"]).read_bytes())
        except OSError as error:
            raise CommandError(f"cannot read {options['file']}: {error.strerror}") from error
        try:
            standings = standings_from_trf(
                text,
                rounds=options["rounds"],
                chain=SYSTEMS[options["system"]],
                variant=CutVariant(options["variant"]),
                unplayed=Unplayed(options["unplayed"]),
            )
        except ValueError as error:
            raise CommandError(f"{options['file']}: {error}") from error
        self.stdout.write(standings_csv(standings), ending="")
