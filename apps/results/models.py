"""Result entry works on the games of ``apps.groups.models.Game``. This app's one table:
the results players report for their own games, which the opponent confirms or disputes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices
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
