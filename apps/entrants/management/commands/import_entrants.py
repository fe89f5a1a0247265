"""manage.py import_entrants FILE.csv --tournament SLUG --user NAME [--stage N] [--replace]
[--dry-run]"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from apps.core.errors import ActionError
from apps.stages.management.engine_io import Failure, read_text
from apps.stages.models import Stage

from ...services import (
    ImportPreview,
    ReplacePreview,
    import_entrants,
    preview_import,
    preview_replace,
    replace_entrants,
)


class Command(BaseCommand):
    help = "Import an entrant CSV into a stage (all or nothing; every bad row is listed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="entrant CSV (docs/interfaces.md §1)")
        parser.add_argument("--tournament", required=True, help="the tournament's slug")
        parser.add_argument("--stage", type=int, default=1, help="the stage's order (default 1)")
        parser.add_argument("--user", required=True, help="the organizer acting (username)")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="the file becomes the stage's list: add, change and remove entrants by code",
        )
        parser.add_argument("--dry-run", action="store_true", help="check only, write nothing")

    def handle(self, *args, **opts) -> None:
        stage = (
            Stage.objects.select_related("tournament")
            .filter(tournament__slug=opts["tournament"], order=opts["stage"])
            .first()
        )
        if stage is None:
            raise Failure(f"no stage {opts['stage']} in tournament {opts['tournament']!r}")
        user = get_user_model().objects.filter(username=opts["user"]).first()
        if user is None:
            raise Failure(f"no user {opts['user']!r}")
        text = read_text(opts["file"])
        preview: ImportPreview
        try:
            if opts["replace"]:
                if opts["dry_run"]:
                    preview = preview_replace(stage, text)
                else:
                    preview = replace_entrants(user, stage, text)
            elif opts["dry_run"]:
                preview = preview_import(stage, text)
            else:
                preview = import_entrants(user, stage, text)
        except ActionError as exc:
            rows = "".join(f"\n  line {d['line']}: {d['message']}" for d in exc.details)
            raise Failure(f"{exc.message}{rows}") from exc
        if isinstance(preview, ReplacePreview):
            done = "would replace" if opts["dry_run"] else "replaced"
            self.stdout.write(
                f"{done} the entrants of {stage}: {len(preview.added)} added, "
                f"{len(preview.changed)} changed, {len(preview.removed)} removed, "
                f"{preview.unchanged} unchanged ({preview.count} entrants)"
            )
            return
        done = "would import" if opts["dry_run"] else "imported"
        nations = ", ".join(f"{n} {c}" for n, c in preview.nations()[:5])
        self.stdout.write(f"{done} {preview.count} entrants into {stage} (largest: {nations})")
