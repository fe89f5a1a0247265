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

    # One index besides the key: (group, number), that of game_number_unique. Every read of
    # games names their group: a group's games, or a player's games in given groups (at most
    # a few hundred rows each to filter). A draw writes its games in this index's order, so
    # it is cheap to fill, while each index on white, black or (group, white, black) took a
    # draw's write longer than the table itself. Deleting an entrant (never done by the
    # application; the ORM cascades to their games) scans the games.
    #
    # No database-level foreign keys: a draw writes 500,000 games at once, and checking a key
    # costs a query per row, half of that write for the group's key alone. Games are written
    # only by the draw, with the groups it creates and the stage's own entrants in the same
    # transaction, and the ORM still cascades when a group or an entrant is deleted.
    group = models.ForeignKey(
        "groups.Group",
        on_delete=models.CASCADE,
        related_name="games",
        db_constraint=False,
        db_index=False,
    )
    number = models.PositiveIntegerField()
    round = models.PositiveIntegerField(null=True, blank=True)
    white = models.ForeignKey(
        "entrants.Entrant",
        on_delete=models.CASCADE,
        related_name="white_games",
        db_constraint=False,
        db_index=False,
    )
    black = models.ForeignKey(
        "entrants.Entrant",
        on_delete=models.CASCADE,
        related_name="black_games",
        db_constraint=False,
        db_index=False,
    )
    result = models.CharField(max_length=8, choices=Result.choices, blank=True, default="")
    adjudicated = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="game_number_unique"),
            models.CheckConstraint(
                condition=~models.Q(white=models.F("black")), name="game_two_players"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.white.code}–{self.black.code} {self.result or '…'}"
