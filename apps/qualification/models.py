"""The organizer's changes to a stage's qualifiers before confirming them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices


class Adjustment(models.Model):
    """A pre-qualified entrant added to the next stage, or a qualifier who declines.

    ``stage`` is the stage qualified FROM; confirming its qualification turns the list,
    these adjustments included, into the next stage's entries.
    """

    class Kind(TextChoices):
        PREQUALIFIED = "prequalified", _("pre-qualified")
        DECLINED = "declined", _("declined")

    stage = models.ForeignKey(
        "stages.Stage", on_delete=models.CASCADE, related_name="qualification_adjustments"
    )
    entrant = models.ForeignKey("entrants.Entrant", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    reason = models.CharField(max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["stage", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "entrant"], name="adjustment_entrant_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.entrant} {self.kind} ({self.stage})"
