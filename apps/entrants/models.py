"""Entrants of a tournament and their membership of stages."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.audit import Action, record
from apps.core.choices import TextChoices
from apps.core.jobs import Job, one_unfinished_per
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.entrants import FieldProblem, check_entrant, check_fields

from .fields import invalid_fields, problem_message

# The fields of an entrant the engine's rules check (apps/silli/entrants.py).
CHECKED_FIELDS = frozenset({"code", "name", "nation", "rating", "person", "email"})


class Person(models.Model):
    """A player as a person, across tournaments and stages: every entry (:class:`Entrant`)
    of theirs points here through ``Entrant.profile``. People are tied to entries by account
    and by rating-list ID (``apps/entrants/people.py`` says how); an entry with neither has
    no person. One person per account, one per rating-list ID."""

    name = models.CharField(max_length=200)
    federation = models.CharField(max_length=3, blank=True)
    title = models.CharField(max_length=8, blank=True)
    rating_id = models.CharField(
        max_length=32, blank=True, help_text="the ID on rating lists; unique when given"
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="person",
    )
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="the person this one turned out to be (their page leads there)",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = _("people")
        constraints = [
            models.UniqueConstraint(
                fields=["rating_id"],
                condition=~models.Q(rating_id=""),
                name="person_rating_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.federation or '–'})"


class Entrant(models.Model):
    """One entry of a tournament (a person may hold several: same ``person``). ``person``
    is the raw ID the entry came with (the code when none was given); ``profile`` is the
    :class:`Person` the entry belongs to, when it is known."""

    tournament = models.ForeignKey(
        "stages.Tournament", on_delete=models.CASCADE, related_name="entrants"
    )
    code = models.CharField(max_length=32)
    name = models.CharField(max_length=200)
    nation = models.CharField(max_length=3, db_index=True)
    rating = models.PositiveSmallIntegerField(null=True, blank=True)
    person = models.CharField(max_length=32)
    email = models.EmailField(blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="entries",
    )
    profile = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "code"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="entrant_code_unique"),
        ]
        indexes = [models.Index(fields=["tournament", "name"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.nation}, {self.code})"

    def save(self, *args, **kwargs) -> None:
        """Refuse details the field rules refuse, whichever action writes them: an
        :class:`~apps.core.errors.ActionError` (400) instead of a broken entrant list."""
        fields = kwargs.get("update_fields")
        saved = CHECKED_FIELDS if fields is None else CHECKED_FIELDS & set(fields)
        if saved:
            checked, problems = check_fields({name: getattr(self, name) for name in saved})
            if problems:
                raise invalid_fields(problems)
            for name, value in checked.items():  # trimmed, the nation in upper case
                setattr(self, name, value)
            if "person" in saved and not self.person:
                self.person = self.code
        super().save(*args, **kwargs)

    def checked(self) -> tuple[EngineEntrant | None, list[FieldProblem]]:
        """This entrant's details through the engine's field rules: as the engine has them
        (trimmed, the nation in upper case), or None and what the rules refuse."""
        return check_entrant(
            code=self.code,
            name=self.name,
            nation=self.nation,
            rating=self.rating,
            person=self.person,
            email=self.email,
        )

    def problems(self) -> list[FieldProblem]:
        """What the engine's field rules refuse in this entrant's details (nothing: valid)."""
        return self.checked()[1]

    def clean(self) -> None:
        """The field rules, for model forms (the admin)."""
        errors: dict[str, list[str]] = {}
        for problem in self.problems():
            errors.setdefault(problem.field, []).append(problem_message(problem))
        if errors:
            raise ValidationError(errors)


class ClaimRefusal(models.Model):
    """The person at an entry's address said the entry is not theirs ("not me", from a claim
    link): no more claim links or e-mails about the entry go to that address. It stands while
    the entry keeps that address; an organizer who corrects the address voids it."""

    entrant = models.OneToOneField(Entrant, on_delete=models.CASCADE, related_name="claim_refusal")
    email = models.EmailField()  # the address that refused, in lower case
    refused_at = models.DateTimeField()

    class Meta:
        verbose_name = _("refused claim link")

    def __str__(self) -> str:
        return f"{self.email} refused entrant {self.entrant_id}"

    def stands_for(self, address: str) -> bool:
        return bool(address) and address.strip().lower() == self.email


class StageEntry(models.Model):
    """An entrant taking part in a stage: registered, qualified or pre-qualified."""

    class Source(TextChoices):
        REGISTERED = "registered", _("registered")
        QUALIFIED = "qualified", _("qualified")
        PREQUALIFIED = "prequalified", _("pre-qualified")

    stage = models.ForeignKey("stages.Stage", on_delete=models.CASCADE, related_name="entries")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="stage_entries")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.REGISTERED)
    reason = models.CharField(max_length=200, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawal_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stage", "entrant"], name="stage_entry_unique"),
        ]
        indexes = [
            # The withdrawn entries only (a few): a standings recompute looks up each seat's
            # entrant here (apps/standings/groups.py), and a stage's pass reads them all.
            models.Index(
                fields=["entrant", "stage"],
                condition=models.Q(withdrawn_at__isnull=False),
                name="stage_entry_withdrawn",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entrant} in {self.stage}"


class ImportJob(Job):
    """An entrant import too big for one request, run by a Celery worker
    (``apps/entrants/importing.py``): it reads the file in pieces, counting the rows checked
    so a progress bar can move, then writes everything in one transaction — or, as a dry run
    (``dry_run``), only checks the file and keeps the preview in ``result``."""

    class Mode(TextChoices):
        ADD = "add", _("Add to the list")
        REPLACE = "replace", _("Replace the list")

    class Phase(TextChoices):
        CHECKING = "checking", _("Checking")
        SAVING = "saving", _("Importing")

    # A job not finished this long after it was started was lost (its task runs for at most
    # ten minutes, and a task whose worker died is delivered again within five): it is
    # stopped when the stage's next import starts, or when its progress is read. Its task is
    # not queued again: the broker hands a lost one back.
    TIME_LIMIT = timedelta(minutes=30)
    TIME_LIMIT_MESSAGE = _(
        "The import stopped before it finished (its worker was lost); nothing was written. "
        "Start the import again."
    )

    stage = models.ForeignKey("stages.Stage", on_delete=models.CASCADE, related_name="import_jobs")
    mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.ADD)
    dry_run = models.BooleanField(
        default=False, help_text="a check only: the job answers a preview and writes nothing"
    )
    csv = models.TextField(
        blank=True,
        help_text="the file; emptied when the job finishes (a dry run's once it is confirmed, "
        "or a day later)",
    )
    phase = models.CharField(max_length=16, choices=Phase.choices, blank=True)
    total_rows = models.PositiveIntegerField(default=0, help_text="the file's data rows")
    done_rows = models.PositiveIntegerField(default=0, help_text="rows checked so far")
    result = models.JSONField(
        null=True, blank=True, help_text="the outcome: {imported} or the preview's numbers"
    )
    details = models.JSONField(default=list, blank=True, help_text="bad rows: [{line, message}]")
    preview = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="confirmations",
        help_text="the dry run whose file this import took, when it confirmed one",
    )

    class Meta(Job.Meta):
        constraints = [one_unfinished_per("stage", name="import_job_one_unfinished_per_stage")]

    def __str__(self) -> str:
        kind = "dry run" if self.dry_run else "import"
        return f"{kind} ({self.mode}) into {self.stage} ({self.status})"

    def failure_changes(self) -> dict[str, Any]:
        """A failed job lets go of its file; its bad rows are those the failure names."""
        return {"csv": "", "details": []}

    def record_failure(self, message: str) -> None:
        if not self.dry_run:
            record(
                Action.ENTRANTS_IMPORT_FAILED,
                self.started_by,
                stage=self.stage,
                job=self.pk,
                error=message,
                bad_rows=len(self.details),
            )
