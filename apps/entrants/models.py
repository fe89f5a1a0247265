"""Entrants of a tournament and their membership of stages."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Entrant(models.Model):
    """One entry of a tournament (a person may hold several: same ``person``)."""

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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "code"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="entrant_code_unique"),
        ]
        indexes = [models.Index(fields=["tournament", "name"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.nation}, {self.code})"


class StageEntry(models.Model):
    """An entrant taking part in a stage: registered, qualified or pre-qualified."""

    class Source(models.TextChoices):
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

    def __str__(self) -> str:
        return f"{self.entrant} in {self.stage}"
