"""What each user wants to receive, and which e-mails went out (so none goes twice)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices


class Kind(TextChoices):
    """The kinds of e-mail the application sends."""

    START_LIST = "start_list", _("my start list when a draw is published")
    RESULT = "result", _("results of my games, when entered or corrected")
    TD_DIGEST = "td_digest", _("a daily digest of changes in the groups I direct")
    INVITATION = "invitation", _("invitations")
    CLAIM = "claim", _("links to claim an entry")
    DEADLINE = "deadline", _("a reminder of my unfinished games before play ends")
    REPORT = "report", _("results reported for my games, and disputes of them")
    REGISTRATION = "registration", _("my requests to enter a stage, and their answers")
    # Games played on this server (apps/play/notices.py)
    MOVE = "move", _("my opponents' moves in games played here, one e-mail each")
    MOVE_DIGEST = "move_digest", _("a daily digest of my opponents' moves in games played here")
    SILENCE = "silence", _("reminders of a move I have not made in a game played here")
    LEAVE = "leave", _("my opponents' leave in games played here")


# The kinds a user may turn off: invitations and claim links are sent because someone asked.
OPTIONAL_KINDS = (Kind.START_LIST, Kind.RESULT, Kind.TD_DIGEST, Kind.MOVE, Kind.MOVE_DIGEST)


class Preferences(models.Model):
    """A user's choice of notifications (no row: everything on)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    start_list = models.BooleanField(_("start lists"), default=True)
    result = models.BooleanField(_("results of my games"), default=True)
    td_digest = models.BooleanField(_("daily TD digest"), default=True)
    # An opponent's move in a game played here: at once (one e-mail a move), in one digest a
    # day, both or neither.
    move = models.BooleanField(_("each move of my opponents, at once"), default=True)
    move_digest = models.BooleanField(_("my opponents' moves, in one e-mail a day"), default=False)

    class Meta:
        verbose_name = _("notification preferences")
        verbose_name_plural = _("notification preferences")

    def __str__(self) -> str:
        return f"notifications of {self.user}"

    def wants(self, kind: str) -> bool:
        return getattr(self, kind, kind != Kind.MOVE_DIGEST)


class SentNotification(models.Model):
    """One e-mail sent: written in the transaction that commits after the mail server took the
    message, and looked up before sending, so a retried task never sends it again."""

    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(max_length=100, help_text="what the e-mail is about, e.g. a group id")
    recipient = models.EmailField()
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-sent_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "key", "recipient"], name="sent_notification_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} to {self.recipient}"
