"""Invitations: an organizer asks a person, by e-mail, to become a co-organizer of a
tournament or the TD of a group; the e-mailed link creates their account and grants the role."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices


class Invitation(models.Model):
    """One invitation; the link in its e-mail is signed and expires (see ``links.py``)."""

    class Role(TextChoices):
        ORGANIZER = "organizer", _("co-organizer of the tournament")
        TD = "td", _("TD of a group")

    tournament = models.ForeignKey(
        "stages.Tournament", on_delete=models.CASCADE, related_name="invitations"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    # A TD is invited to a group by stage and number: a redraw before publication replaces
    # the stage's groups, the numbers stay.
    stage = models.ForeignKey(
        "stages.Stage", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    group_number = models.PositiveIntegerField(null=True, blank=True)
    email = models.EmailField()
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="accepted_invitations",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(role="organizer", stage__isnull=True, group_number__isnull=True)
                    | Q(role="td", stage__isnull=False, group_number__isnull=False)
                ),
                name="invitation_role_target",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.email} as {self.role} of {self.tournament}"

    @property
    def role_text(self) -> str:
        """The role in words, e.g. "TD of group 3 (Preliminary)"."""
        if self.role == self.Role.TD:
            assert self.stage is not None  # a TD's invitation has its stage (the constraint)
            return _("TD of group %(number)s (%(stage)s)") % {
                "number": self.group_number,
                "stage": self.stage.get_kind_display(),
            }
        return str(self.Role.ORGANIZER.label)
