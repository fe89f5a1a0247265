"""Stored standings: one row per entrant of a group, recomputed after result changes."""

from __future__ import annotations

from django.db import models

FIGURES = (
    "points",
    "games",
    "gms",
    "rgp",
    "bh",
    "bh_c1",
    "bh_c2",
    "ts",
    "ts_cut1",
    "ts_median",
    "sb",
    "wins",
    "black_games",
)


class GroupStanding(models.Model):
    """An entrant's row in their group's standings (figures as exact decimals in JSON)."""

    group = models.ForeignKey("groups.Group", on_delete=models.CASCADE, related_name="standings")
    entrant = models.ForeignKey("entrants.Entrant", on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveIntegerField()
    position = models.PositiveIntegerField(help_text="order in the group, shared places by seat")
    place = models.CharField(max_length=16, help_text="e.g. 3 or 3-4")
    points = models.DecimalField(max_digits=7, decimal_places=2)
    finished = models.PositiveIntegerField(default=0)
    scheduled = models.PositiveIntegerField(default=0)
    withdrawn = models.BooleanField(default=False)
    figures = models.JSONField(default=dict)

    class Meta:
        ordering = ["group", "position"]
        constraints = [
            models.UniqueConstraint(fields=["group", "entrant"], name="standing_entrant_unique"),
            models.UniqueConstraint(fields=["group", "position"], name="standing_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.place}. {self.entrant_id} in {self.group_id}"
