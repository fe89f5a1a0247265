"""The audit trail (one event per state change, written in the change's transaction) and
the profiles of accounts (the name others see)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .people import DISPLAY_NAME_MAX_LENGTH, validate_display_name


class AuditEvent(models.Model):
    """Who did what, when, to which tournament/stage/group/game (by id), with the details."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    action = models.CharField(max_length=64)
    # What the event is about, by id: the audit trail sits below the apps whose objects it
    # names, so it holds their ids, not foreign keys. Events outlive what they name (a draw
    # replaced before publication deletes its groups and games; the events stay).
    tournament_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    stage_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    group_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    game_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}"


class ResultChange(models.Model):
    """One game's change by a bulk audit event (a results import, ``results.imported``):
    the game's result before (``old``, '' = in progress) and after (``new``; the same when the
    import only added a score or a finish date). Written by COPY, hundreds of thousands at
    once, instead of an audit event per game; a game's history reads them (by ``game_id``)
    as the changes they are (``apps.core.audit.result_change_events``). Ids, not foreign
    keys, as the events' own. The event's key has no constraint in the database: the rows
    are written with their event, in its transaction, and checking the key of half a million
    rows at the commit took seconds; a deleted event still takes its rows along (Django's
    cascade)."""

    event = models.ForeignKey(
        AuditEvent, on_delete=models.CASCADE, related_name="result_changes", db_constraint=False
    )
    game_id = models.BigIntegerField(db_index=True)
    group_id = models.BigIntegerField()
    old = models.CharField(max_length=8, blank=True)
    new = models.CharField(max_length=8)

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.old or '…'} → {self.new}"


class Profile(models.Model):
    """What an account shows of itself to others: its display name (see ``apps.core.people``).

    Accounts without a profile are shown by their full name or a neutral label; the profile
    is made when a name is first set.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(
        max_length=DISPLAY_NAME_MAX_LENGTH, blank=True, validators=[validate_display_name]
    )

    def __str__(self) -> str:
        return self.display_name


class UnsentTask(models.Model):
    """A task that could not be queued because the broker was unreachable (an e-mail to
    send, say): kept here, in the database that committed the change, and sent again by the
    outbox sweep once the broker answers (``apps.core.outbox``)."""

    task = models.CharField(max_length=200)
    args = models.JSONField(default=list, blank=True)
    kwargs = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)!r}"


class PageVersion(models.Model):
    """How many times what a public page shows of a tournament, a stage or a group changed
    (``apps.core.pagecache``): the cached copies of its pages are filed under these numbers,
    so bumping one retires every copy at once. Held by kind and id, as the audit trail holds
    them (this app sits below the apps whose objects it names)."""

    class Scope(models.TextChoices):
        TOURNAMENT = "t"  # its settings and its stages' list
        STAGE = "s"  # a stage's state and settings (shown on each of its groups' pages too)
        PLAY = "p"  # what is played in a stage's groups: results, standings, the ranking
        GROUP = "g"  # a group's games and standings

    scope = models.CharField(max_length=1, choices=Scope.choices)
    object_id = models.BigIntegerField()
    version = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "object_id"], name="core_pageversion_once")
        ]

    def __str__(self) -> str:
        return f"{self.scope}{self.object_id} v{self.version}"
