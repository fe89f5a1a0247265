"""Games played on this server: the position, the moves with their dates, the clock's next
deadlines, draw offers, conditional moves and players' leave.

The server is the only authority on a game played here: every move is checked with python-chess
before it is stored, and the clock is computed by the pure ``apps.clock`` from the stored moves'
dates and the players' leave. Two columns are kept for the sweep that runs the clock by itself
(``loses_at``, ``next_reminder_at``): recomputed by the action that changes them (a move, a
leave, days added by the TD), so finding every game whose time ran out is one indexed query.
The game's result is written through the one result action of ``apps.results``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class PlayedGame(models.Model):
    """The server's side of one game of a stage played on this server (one row per
    ``groups.Game``, made when the stage's games are made or when play starts)."""

    game = models.OneToOneField(
        "groups.Game", on_delete=models.CASCADE, primary_key=True, related_name="play"
    )
    stage = models.ForeignKey(
        "stages.Stage", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    started_at = models.DateTimeField(help_text="when the clock started (White's time runs)")
    ply = models.PositiveIntegerField(default=0, help_text="half-moves played so far")
    fen = models.CharField(max_length=100, help_text="the position after the last move")
    finished_at = models.DateTimeField(null=True, blank=True)
    # The sweep's columns (null once the game is finished): the moment the side to move loses
    # on time if it does not move (its announced leave included), and the moment its next
    # silence reminder (or the loss by silence) is due; ``reminders_sent`` counts the reminders
    # of the current silence (0 to 3; reset by a move).
    loses_at = models.DateTimeField(null=True, blank=True)
    next_reminder_at = models.DateTimeField(null=True, blank=True)
    reminders_sent = models.PositiveSmallIntegerField(default=0)
    # Days the TD added to a player's clock (audited with a reason).
    extra_days_white = models.PositiveIntegerField(default=0)
    extra_days_black = models.PositiveIntegerField(default=0)
    # Declared beforehand: the player will use more than the silence limit on a move.
    long_think_white = models.BooleanField(default=False)
    long_think_black = models.BooleanField(default=False)
    # The standing draw offer: the ply after which it was made (by the side that made that
    # ply's move), or null when none stands.
    draw_offer_ply = models.PositiveIntegerField(null=True, blank=True)
    # Who made the standing offer ("white"/"black"; empty: none stands). An offer is made with
    # a move or standing (by the side to move), so the ply alone does not say whose it is.
    draw_offer_side = models.CharField(max_length=5, blank=True, default="")
    # Each player's last draw offer, as the game's move number then (one offer per 10 moves).
    last_offer_move_white = models.PositiveIntegerField(null=True, blank=True)
    last_offer_move_black = models.PositiveIntegerField(null=True, blank=True)
    # How the game ended (apps.play.services.End), empty while it is played.
    ended_by = models.CharField(max_length=24, blank=True, default="")
    version = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(
                fields=["loses_at"],
                condition=Q(finished_at__isnull=True),
                name="play_open_loses_at",
            ),
            models.Index(
                fields=["next_reminder_at"],
                condition=Q(finished_at__isnull=True),
                name="play_open_reminder_at",
            ),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} at ply {self.ply}"


class Move(models.Model):
    """One half-move, as the server accepted it."""

    game = models.ForeignKey(
        PlayedGame, on_delete=models.CASCADE, related_name="moves", db_index=False
    )
    ply = models.PositiveIntegerField(help_text="1 for White's first move")
    san = models.CharField(max_length=16)
    uci = models.CharField(max_length=8)
    played_at = models.DateTimeField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    draw_offered = models.BooleanField(default=False)
    conditional = models.BooleanField(
        default=False, help_text="played from the player's conditional moves"
    )

    class Meta:
        ordering = ["game", "ply"]
        constraints = [
            models.UniqueConstraint(fields=["game", "ply"], name="play_move_ply_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.ply}. {self.san}"


class ConditionalLine(models.Model):
    """A player's "if X then Y" sequence: after ply ``after_ply``, the opponent's moves and the
    player's answers alternate in ``moves`` (UCI, the opponent's first)."""

    game = models.ForeignKey(PlayedGame, on_delete=models.CASCADE, related_name="conditionals")
    side = models.CharField(max_length=5)  # "white" or "black": whose answers these are
    after_ply = models.PositiveIntegerField()
    moves = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.side} after ply {self.after_ply}: {' '.join(self.moves)}"


class Leave(models.Model):
    """A player's leave: whole calendar days (UTC), announced before it starts; both clocks stop
    in all the player's games played here."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="leaves"
    )
    starts_on = models.DateField()
    ends_on = models.DateField(help_text="the last day of leave, inclusive")
    special = models.BooleanField(default=False, help_text="taken from the event's special leave")
    created_at = models.DateTimeField(auto_now_add=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "starts_on"], name="play_leave_user_start")]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_on__gte=models.F("starts_on")), name="play_leave_order"
            )
        ]

    def __str__(self) -> str:
        return f"leave {self.starts_on}–{self.ends_on}"
