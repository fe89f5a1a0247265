"""The audit trail: one event per state change, written in the change's transaction."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """Who did what, when, to which tournament/stage/group/game, with the details."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    action = models.CharField(max_length=64)
    tournament = models.ForeignKey(
        "stages.Tournament", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    stage = models.ForeignKey(
        "stages.Stage", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    # Groups and games are deleted only when an unpublished draw is replaced, before any
    # result exists; the events keep their ids, and the delete stays one statement.
    group = models.ForeignKey(
        "groups.Group",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    game = models.ForeignKey(
        "results.Game",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}"
