"""Result entry works on the games of ``apps.groups.models.Game``. This app's tables: the
results players report for their own games, which the opponent confirms or disputes, and the
results import jobs (big CSV or PGN files, run by a Celery worker)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.audit import Action, record
from apps.core.choices import TextChoices
from apps.core.jobs import Job, one_unfinished_per
from apps.core.results import Result

# The longest game score, in characters, on every road one comes in by: the result and report
# forms and API fields, result entry and players' reports (the score as stored, with its
# tags: imports.checked_game_score), the results import (each CSV cell and each PGN game,
# as stored). A game with its comments fits in far less; a page shows the score whole.
PGN_MAX_LENGTH = 100_000


class ResultReport(models.Model):
    """A result one player of a game reported. It stands once the opponent confirms it; a
    dispute sends it to the group's TD, who enters the result (at most one report per game
    awaits an answer)."""

    class Side(TextChoices):
        WHITE = "white", _("White")
        BLACK = "black", _("Black")

    class Status(TextChoices):
        PENDING = "pending", _("awaiting the opponent")
        CONFIRMED = "confirmed", _("confirmed")
        DISPUTED = "disputed", _("disputed")
        # Nobody answered within the stage's report_accept_days: the result stood.
        ACCEPTED = "accepted", _("stood unanswered")
        # Still open when the game got a result by another road (the TD, an import, a
        # withdrawal): closed, the game's result the reported one or another (``settling``).
        RESOLVED = "resolved", _("closed: the reported result stands")
        SUPERSEDED = "superseded", _("closed: another result stands")

    # Awaiting the opponent or the TD.
    OPEN = (Status.PENDING, Status.DISPUTED)

    # Played results only: forfeits are the TD's to enter.
    RESULTS = [(r.value, r.label) for r in Result if r.played]

    game = models.ForeignKey("groups.Game", on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="result_reports"
    )
    reporter_side = models.CharField(max_length=5, choices=Side.choices)
    result = models.CharField(max_length=8, choices=RESULTS)
    # The score as the game will keep it (checked, tags filled in); empty when none given.
    pgn = models.TextField(blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=500, blank=True, default="")  # the dispute's reason
    # The day the game ended: the score's Date tag when complete, else the day of the report.
    finished_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status", "created_at"], name="result_report_due")]
        constraints = [
            models.UniqueConstraint(
                fields=["game"],
                condition=models.Q(status="pending"),
                name="result_report_one_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}: {self.result} ({self.reporter_side}, {self.status})"

    @property
    def opponent_side(self) -> str:
        return "black" if self.reporter_side == "white" else "white"


class ResultImportJob(Job):
    """A results import (CSV or PGN) too big for one request, run by a Celery worker
    (``apps/results/import_jobs.py``): it reads the file counting its lines, so a progress
    bar can move, then checks it against the games and writes every result in one
    transaction, the job's outcome with them — or, as a dry run (``dry_run``), only checks
    the file and keeps the preview in ``result``. A group's import (``group`` set: its TD or
    an organizer) or a whole stage's (``group`` empty: organizers)."""

    class Phase(TextChoices):
        CHECKING = "checking", _("Reading the file")
        SAVING = "saving", _("Importing")

    class Format(TextChoices):
        CSV = "csv", "CSV"
        PGN = "pgn", "PGN"

    # A job not heard from this long lost its task (a killed worker): the sweep
    # (``tasks.resume_stalled_result_imports``, every minute) queues it again. Longer than
    # the one transaction that writes a file's results takes (no heartbeat meanwhile) at the
    # largest file the body limit lets in; a job queued again while it still runs waits for
    # the job's row and then finds it finished.
    RESUME_AFTER = timedelta(minutes=5)
    # Its task runs for at most 15 minutes, and is queued again at most every RESUME_AFTER.
    TIME_LIMIT = timedelta(minutes=60)
    TIME_LIMIT_MESSAGE = _(
        "The results import did not finish within %(minutes)s minutes and was stopped; "
        "nothing was written. Start the import again."
    )

    stage = models.ForeignKey(
        "stages.Stage", on_delete=models.CASCADE, related_name="result_import_jobs"
    )
    group = models.ForeignKey(
        "groups.Group",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="result_import_jobs",
        help_text="the group imported into; empty: the whole stage",
    )
    file_format = models.CharField(max_length=3, choices=Format.choices)
    dry_run = models.BooleanField(
        default=False, help_text="a check only: the job answers a preview and writes nothing"
    )
    text = models.TextField(
        blank=True,
        help_text="the file; emptied when the job finishes (a dry run's once it is confirmed, "
        "or a day later)",
    )
    phase = models.CharField(max_length=16, choices=Phase.choices, blank=True)
    total_lines = models.PositiveIntegerField(default=0, help_text="the file's lines")
    done_lines = models.PositiveIntegerField(default=0, help_text="lines read so far")
    games = models.PositiveIntegerField(
        default=0, help_text="games (PGN) or rows (CSV) read so far"
    )
    result = models.JSONField(
        null=True, blank=True, help_text="the outcome: what was imported, or the preview"
    )
    details = models.JSONField(default=list, blank=True, help_text="bad lines: [{line, message}]")
    preview = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="confirmations",
        help_text="the dry run whose file this import took, when it confirmed one",
    )

    class Meta(Job.Meta):
        constraints = [
            one_unfinished_per("group", name="result_import_job_one_unfinished_per_group"),
            models.UniqueConstraint(
                fields=["stage"],
                condition=models.Q(status__in=list(Job.UNFINISHED), group__isnull=True),
                name="result_import_job_one_unfinished_per_stage",
            ),
        ]

    def __str__(self) -> str:
        kind = "dry run" if self.dry_run else "import"
        where = f"group {self.group_id}" if self.group_id else f"stage {self.stage_id}"
        return f"results {kind} ({self.file_format}) into {where} ({self.status})"

    def failure_changes(self) -> dict[str, Any]:
        """A failed job lets go of its file; its bad lines are those the failure names."""
        return {"text": "", "details": []}

    def record_failure(self, message: str) -> None:
        if not self.dry_run:
            record(
                Action.RESULTS_IMPORT_FAILED,
                self.started_by,
                stage=self.stage,
                group=self.group,
                job=self.pk,
                error=message,
                bad_lines=len({row["line"] for row in self.details}),
            )
