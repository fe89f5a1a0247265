"""Rating lists (a federation's published ratings on a date), the import job that reads
one, and which list a stage took its entrants' ratings from."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.audit import Action, record
from apps.core.choices import TextChoices
from apps.core.jobs import Job

# The longest values a list's row may hold (an entrant's person ID is as long).
PERSON_ID_LENGTH = 32
NAME_LENGTH = 200
TITLE_LENGTH = 8


class RatingList(models.Model):
    """One rating list: its name ("ICCF list 2026/4"), the date it is valid from, where it
    came from, who imported it; one :class:`RatingListEntry` per person."""

    name = models.CharField(_("name"), max_length=100)
    list_date = models.DateField(_("list date"))
    source = models.CharField(_("source"), max_length=200, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    entry_count = models.PositiveIntegerField(default=0, help_text="the list's rows")

    class Meta:
        ordering = ["-list_date", "name", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["name", "list_date"], name="rating_list_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.list_date.isoformat()})"


class RatingListEntry(models.Model):
    """One person's line of a rating list. ``rating`` is None for a person the list names
    without a rating; ``games`` are their rated games so far (FIDE's K depends on them)."""

    rating_list = models.ForeignKey(RatingList, on_delete=models.CASCADE, related_name="entries")
    person = models.CharField(_("ID"), max_length=PERSON_ID_LENGTH)
    name = models.CharField(_("name"), max_length=NAME_LENGTH)
    federation = models.CharField(_("federation"), max_length=3)
    rating = models.PositiveSmallIntegerField(_("rating"), null=True, blank=True)
    games = models.PositiveIntegerField(_("games"), default=0)
    title = models.CharField(_("title"), max_length=TITLE_LENGTH, blank=True)

    class Meta:
        verbose_name_plural = "rating list entries"
        constraints = [
            models.UniqueConstraint(
                fields=["rating_list", "person"], name="rating_list_entry_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.person} {self.name} {self.rating or '-'}"


class StageRatingList(models.Model):
    """The rating list a stage's entrants took their ratings from (the last one applied)."""

    stage = models.OneToOneField(
        "stages.Stage", on_delete=models.CASCADE, related_name="rating_list_used"
    )
    rating_list = models.ForeignKey(RatingList, on_delete=models.PROTECT, related_name="stages")
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    applied_at = models.DateTimeField()
    updated = models.PositiveIntegerField(default=0, help_text="entrants whose rating changed")
    matched = models.PositiveIntegerField(default=0, help_text="entrants found on the list")
    missing = models.PositiveIntegerField(default=0, help_text="entrants not on the list")

    def __str__(self) -> str:
        return f"{self.stage} uses {self.rating_list}"


class RatingListImportJob(Job):
    """A rating list too big for one request, read and written by a Celery worker
    (``apps/ratinglists/importing.py``): every row is checked first (the progress bar moves
    with ``done_rows``); with a bad row nothing is written and ``details`` lists every bad row;
    otherwise the list and all its rows are written in one transaction. A dry run only
    checks and keeps the preview's numbers in ``result``."""

    class Phase(TextChoices):
        CHECKING = "checking", _("Checking")
        SAVING = "saving", _("Importing")

    TIME_LIMIT = timedelta(minutes=30)
    TIME_LIMIT_MESSAGE = _(
        "The import stopped before it finished (its worker was lost); nothing was written. "
        "Start the import again."
    )

    name = models.CharField(max_length=100)
    list_date = models.DateField()
    source = models.CharField(max_length=200, blank=True)
    dry_run = models.BooleanField(default=False)
    csv = models.TextField(blank=True, help_text="the file; emptied when the job finishes")
    phase = models.CharField(max_length=16, choices=Phase.choices, blank=True)
    total_rows = models.PositiveIntegerField(default=0)
    done_rows = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True, help_text="the preview or what was written")
    details = models.JSONField(default=list, blank=True, help_text="bad rows: [{line, message}]")
    rating_list = models.ForeignKey(
        RatingList, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        kind = "dry run" if self.dry_run else "import"
        return f"rating list {kind} {self.name} {self.list_date} ({self.status})"

    def failure_changes(self) -> dict[str, Any]:
        return {"csv": ""}

    def record_failure(self, message: str) -> None:
        if not self.dry_run:
            record(
                Action.RATING_LIST_IMPORT_FAILED,
                self.started_by,
                job=self.pk,
                name=self.name,
                error=message,
                bad_rows=len(self.details),
            )
