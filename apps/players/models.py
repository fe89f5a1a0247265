"""Tables of the players app.

Registration by players (``registrations.py`` holds the actions): a player's request to enter
a stage, its state and its place in the order of registration.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices

# ---------------------------------------------------------------------------
# Registration by players
# ---------------------------------------------------------------------------


class Registration(models.Model):
    """A signed-in player's request to enter a stage (docs/registration.md).

    ``position`` is the request's place in the stage's order of registration (1, 2, …, never
    reused): the reserve list moves up in that order. A player has at most one active request
    (pending, reserve or approved) per stage; a withdrawn or rejected one stays as a record,
    and the player may ask again.
    """

    class Status(TextChoices):
        PENDING = "pending", _("waiting for approval")
        RESERVE = "reserve", _("on the reserve list")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")
        WITHDRAWN = "withdrawn", _("withdrawn")

    # The requests that hold a place or wait for one.
    ACTIVE = (Status.PENDING, Status.RESERVE, Status.APPROVED)

    stage = models.ForeignKey(
        "stages.Stage", on_delete=models.CASCADE, related_name="player_registrations"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="registrations"
    )
    name = models.CharField(max_length=200)
    federation = models.CharField(max_length=3)
    # The player's ID on the stage's rating list: the entrant's ``person`` once approved.
    rating_list_id = models.CharField(max_length=32, blank=True)
    rating = models.PositiveSmallIntegerField(null=True, blank=True)
    email = models.EmailField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    position = models.PositiveIntegerField()
    # Why an organizer decided as they did (a rejection's reason is required).
    reason = models.CharField(max_length=200, blank=True)
    # The entrant an approval made (kept while the entrant exists).
    entrant = models.ForeignKey(
        "entrants.Entrant",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="registrations",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["stage", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "user"],
                condition=Q(status__in=["pending", "reserve", "approved"]),
                name="registration_one_active_per_player",
            ),
            models.UniqueConstraint(
                fields=["stage", "position"], name="registration_position_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.federation}) for {self.stage}: {self.status}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE
