"""python manage.py demo [--if-empty]: create the demo tournament(s) and the demo organizer."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from config.celery import app

from ...demo import DEMO_PASSWORD, DEMO_USER, create_demo_cup
from ...models import Tournament


class Command(BaseCommand):
    help = "Create the demo tournament (Demo Cup, preliminary drawn and published)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing if any tournament exists"
        )

    def handle(self, *args, **opts) -> None:
        if opts["if_empty"] and Tournament.objects.exists():
            self.stdout.write("Tournaments exist already; no demo created.")
            return
        if Tournament.objects.filter(slug="demo-cup").exists():
            self.stdout.write("Demo Cup exists already.")
            return
        # The demo is made in this process, whether or not a broker is configured.
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            create_demo_cup(log=self.stdout.write)
        finally:
            app.conf.task_always_eager = eager
        self.stdout.write(
            self.style.SUCCESS(f"Sign in as {DEMO_USER!r} with password {DEMO_PASSWORD!r}.")
        )
