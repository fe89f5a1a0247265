"""python manage.py demo [--if-empty]: the demo tournaments, its organizer and its players."""

from __future__ import annotations

from celery import current_app as app
from django.core.management.base import BaseCommand

from apps.office.demo import DEMO_PASSWORD, DEMO_USER
from apps.stages.models import Tournament

from ...tournaments import DEMO_PLAYER, create_demos


class Command(BaseCommand):
    help = (
        "Create the demo tournaments: Demo Cup (preliminary closed, semifinal in play), "
        "Demo Masters (round-robin final drawn), Demo Open 2027 (registration open, players' "
        "requests in every state), Demo Club 2027 (a round robin played on this server) and "
        "Demo Swiss 2027 (a Swiss of 7 rounds: 3 played, round 4 in play)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing if any tournament exists"
        )

    def handle(self, *args, **opts) -> None:
        if opts["if_empty"] and Tournament.objects.exists():
            self.stdout.write("Tournaments exist already; no demo created.")
            return
        # The demo is made in this process, whether or not a broker is configured.
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            created = create_demos(log=self.stdout.write)
        finally:
            app.conf.task_always_eager = eager
        if not created:
            self.stdout.write("The demo tournaments exist already.")
        self.stdout.write(
            self.style.SUCCESS(
                f"Sign in as {DEMO_USER!r} (the organizer) or {DEMO_PLAYER!r} (a player) "
                f"with password {DEMO_PASSWORD!r}."
            )
        )
