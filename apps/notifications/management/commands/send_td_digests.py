"""python manage.py send_td_digests [--date YYYY-MM-DD]: e-mail each TD the day's changes."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from ... import services


class Command(BaseCommand):
    help = (
        "E-mail every TD the changes of one day in the groups they direct (default: "
        "yesterday), as Celery beat does each morning. A digest sent before is not sent again."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--date", help="the day, YYYY-MM-DD (default: yesterday)")

    def handle(self, *args, **opts) -> None:
        try:
            day = date.fromisoformat(opts["date"]) if opts["date"] else services.yesterday()
        except ValueError as exc:
            raise CommandError(f"--date {opts['date']!r} is not a date like 2026-11-21.") from exc
        td_ids = services.digest_recipients(day)
        sent = sum(services.send_td_digest(td_id, day) for td_id in td_ids)
        self.stdout.write(f"{day}: {len(td_ids)} TD(s) with changes, {sent} digest(s) sent.")
