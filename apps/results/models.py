"""Games: scheduled by the draw, results entered by the group's TD."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Game(models.Model):
    """A game of a group, from White's side."""

    class Result(models.TextChoices):
        NONE = "", _("in progress")
        WHITE_WINS = "1-0", "1-0"
        BLACK_WINS = "0-1", "0-1"
        DRAW = "1/2-1/2", "½-½"
        WHITE_FORFEIT_WIN = "+-", _("+− (forfeit)")
        BLACK_FORFEIT_WIN = "-+", _("−+ (forfeit)")
        DOUBLE_FORFEIT = "--", _("−− (both forfeit)")

    # (group, number) is unique, and that index serves lookups by group too.
    group = models.ForeignKey(
        "groups.Group", on_delete=models.CASCADE, related_name="games", db_index=False
    )
    number = models.PositiveIntegerField()
    round = models.PositiveIntegerField(null=True, blank=True)
    # No database-level foreign key to entrants: a draw writes 500,000 games at once, and
    # checking two keys per row was a third of that write. Games are written only by the draw,
    # from the stage's own entrants, and the ORM still cascades when an entrant is deleted.
    white = models.ForeignKey(
        "entrants.Entrant",
        on_delete=models.CASCADE,
        related_name="white_games",
        db_constraint=False,
    )
    black = models.ForeignKey(
        "entrants.Entrant",
        on_delete=models.CASCADE,
        related_name="black_games",
        db_constraint=False,
    )
    result = models.CharField(max_length=8, choices=Result.choices, blank=True, default="")
    adjudicated = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="game_number_unique"),
            models.UniqueConstraint(fields=["group", "white", "black"], name="game_pair_unique"),
            models.CheckConstraint(
                condition=~models.Q(white=models.F("black")), name="game_two_players"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.white.code}–{self.black.code} {self.result or '…'}"
