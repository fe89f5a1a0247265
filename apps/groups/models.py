"""The groups of a drawn stage and their seats."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse


class Group(models.Model):
    """One closed circle (or round robin) of a stage."""

    stage = models.ForeignKey("stages.Stage", on_delete=models.CASCADE, related_name="groups")
    number = models.PositiveIntegerField()
    size = models.PositiveIntegerField()
    formula = models.JSONField(default=list, blank=True)
    rule = models.CharField(max_length=32, blank=True)
    principles_hold = models.BooleanField(default=True)
    conflicts = models.JSONField(default=list, blank=True)
    nation_mix = models.JSONField(default=list, blank=True)
    td = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="directed_groups",
    )
    standings_pending = models.BooleanField(
        default=False, help_text="a standings recompute is queued for this group"
    )
    standings_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="group_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.stage} — group {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("group", args=[self.stage.tournament.slug, self.stage.order, self.number])

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    @property
    def formula_text(self) -> str:
        return ".".join(str(d) for d in self.formula) if self.formula else "round robin"


class Seat(models.Model):
    """An entrant's seat in a group (``stage`` is repeated so one entrant sits once per stage)."""

    stage = models.ForeignKey("stages.Stage", on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveIntegerField()
    entrant = models.ForeignKey("entrants.Entrant", on_delete=models.CASCADE, related_name="seats")

    class Meta:
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["stage", "entrant"], name="seat_entrant_unique"),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} of {self.group}"
