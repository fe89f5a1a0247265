"""manage.py link_people [--tournament SLUG]: tie the entries made before people existed
(or any entries) to their people, tournament by tournament (apps/entrants/people.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.stages.models import Tournament

from ...services import link_tournament_people


class Command(BaseCommand):
    help = "Tie every entry to its person by account and rating-list ID (people.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tournament", help="only this tournament (its slug)")

    def handle(self, *args, **opts) -> None:
        tournaments = Tournament.objects.order_by("pk")
        if opts["tournament"]:
            tournaments = tournaments.filter(slug=opts["tournament"])
            if not tournaments.exists():
                raise CommandError(f"no tournament has the slug {opts['tournament']!r}")
        created = merged = 0
        for tournament in tournaments:
            linked = link_tournament_people(tournament, actor=None)
            created, merged = created + linked.created, merged + linked.merged
        self.stdout.write(f"people made: {created}, merged: {merged}")
