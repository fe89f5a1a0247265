"""What a draw makes of a stage: its groups, their seats and their games, and the files it
publishes for verification."""

from __future__ import annotations

import gzip
import hashlib

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_noop

from apps.core.results import Result
from apps.silli.formula import formula_text
from apps.silli.swiss_system import RULE_PREFIX
from apps.stages.models import Stage

# What a group without a formula plays, in English (the API, the admin); pages translate it.
SWISS = gettext_noop("Swiss")
ROUND_ROBIN = gettext_noop("round robin")


class Group(models.Model):
    """One closed circle (or round robin) of a stage."""

    stage = models.ForeignKey("stages.Stage", on_delete=models.CASCADE, related_name="groups")
    number = models.PositiveIntegerField()
    size = models.PositiveIntegerField()
    formula = models.JSONField(default=list, blank=True)
    rule = models.CharField(max_length=32, blank=True)
    principles_hold = models.BooleanField(default=True)
    conflicts = models.JSONField(default=list, blank=True)
    nation_mix = models.JSONField(default=list, blank=True)
    td = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="directed_groups",
    )
    standings_pending = models.BooleanField(
        default=False, help_text="a standings recompute is queued for this group"
    )
    standings_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="group_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.stage} — group {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("group", args=[self.stage.tournament.slug, self.stage.order, self.number])

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    @property
    def formula_text(self) -> str:
        """The formula as d1.d2…dk, or "Swiss" / "round robin" for a group without one."""
        if self.formula:
            return formula_text(self.formula)
        return SWISS if self.rule.startswith(RULE_PREFIX) else ROUND_ROBIN


class Seat(models.Model):
    """An entrant's seat in a group (``stage`` is repeated so one entrant sits once per stage)."""

    # No database-level foreign keys, as for games: a draw writes 100,000 seats at once,
    # and a commit checks each key of each seat with a query of its own (and locks the
    # entrant's row), about 2-4 s for the three keys, as long as writing the seats. Seats
    # are written by the draw, with the groups it creates in the stage it holds locked and
    # the entrants it checks are the tournament's (one join), and by the Swiss late entry
    # (saved objects); the ORM still cascades when a stage, a group or an entrant is deleted.
    stage = models.ForeignKey(
        "stages.Stage", on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    group = models.ForeignKey(
        Group, on_delete=models.CASCADE, related_name="seats", db_constraint=False
    )
    number = models.PositiveIntegerField()
    entrant = models.ForeignKey(
        "entrants.Entrant", on_delete=models.CASCADE, related_name="seats", db_constraint=False
    )

    class Meta:
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["stage", "entrant"], name="seat_entrant_unique"),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} of {self.group}"


class Game(models.Model):
    """A game of a group, from White's side."""

    # The result codes live in apps.core.results; kept here as ``Game.Result`` too.
    Result = Result

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
        Group,
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
    # Set when a withdrawal turned the unfinished game into a forfeit loss for this player
    # (White or Black), and when. It stays if the result is corrected later: the history
    # still shows the withdrawal. Read with the group, like every game (so no index).
    forfeited_by = models.ForeignKey(
        "entrants.Entrant",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    forfeited_at = models.DateTimeField(null=True, blank=True)
    # The game's score as a whole PGN game (Seven Tag Roster first), as a result import
    # stored it; empty when none was given (always for a forfeit, which was not played).
    pgn = models.TextField(blank=True, default="")
    # The day the game was finished, as the import said (a CSV ``date``, a PGN ``Date``);
    # None when unknown. ``updated_at`` stays the moment the result was entered.
    finished_on = models.DateField(null=True, blank=True)

    class Meta:
        # The table keeps the name it had when games belonged to the results app.
        db_table = "results_game"
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="game_number_unique"),
            models.CheckConstraint(
                condition=~models.Q(white=models.F("black")), name="game_two_players"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.white.code}–{self.black.code} {self.result or '…'}"


class SwissBye(models.Model):
    """A Swiss round's pairing-allocated bye (FIDE C.04.1: an odd number of players leaves
    one unpaired). It scores a win's points (FIDE C.04.1 f; the TRF's ``U``), it is not a
    game played, and no player gets two."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveIntegerField()
    entrant = models.ForeignKey("entrants.Entrant", on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["group", "round"]
        constraints = [
            models.UniqueConstraint(fields=["group", "round"], name="swiss_bye_round_unique"),
            models.UniqueConstraint(fields=["group", "entrant"], name="swiss_bye_entrant_unique"),
        ]

    def __str__(self) -> str:
        return f"bye in round {self.round} of {self.group}"


class SwissRound(models.Model):
    """A Swiss round's start and deadline: written when round 1 is published and when each
    later round is paired (``due_at``: the start plus the stage's ``swiss_round_days``, None
    without a deadline), and marked once when the deadline passes
    (apps/office/swiss/deadlines.py)."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="swiss_rounds")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    due_at = models.DateTimeField(null=True, blank=True)
    deadline_passed_at = models.DateTimeField(null=True, blank=True)
    # What was done when the deadline passed (the stage's ``swiss_at_deadline`` then:
    # "adjudicate" or "td"), and how many of the round's games were unfinished.
    at_deadline = models.CharField(max_length=16, blank=True)
    open_at_deadline = models.PositiveIntegerField(null=True, blank=True)
    # The virtual points (accelerated pairing) the round was paired with, in half-points,
    # seat number (as text) → value, the players without any left out; ``{}`` when none
    # were applied; None for a round paired before they were kept (readers then recompute
    # them for the current field). The TRF export writes them as its XXA lines.
    virtual_points = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "number"], name="swiss_round_unique"),
        ]

    def __str__(self) -> str:
        return f"round {self.number} of {self.group}"

    @property
    def adjudicating(self) -> bool:
        """The deadline passed and the unfinished games went to adjudication: for pairing,
        each of them counts as a draw until its result is entered."""
        return (
            self.deadline_passed_at is not None and self.at_deadline == Stage.AtDeadline.ADJUDICATE
        )


class PublishedFileManager(models.Manager["PublishedFile"]):
    def stored(self, stage, name: str, version: str) -> PublishedFile | None:
        """The file as stored for ``version``, its content not loaded yet (None: not stored,
        or stored for another version)."""
        found = self.filter(stage=stage, name=name, version=version)
        return found.defer("content_gzip").first()

    def store(self, stage, name: str, version: str, text: str) -> PublishedFile:
        """Store (or replace) the file; idempotent: two first requests at once build it twice
        and keep one row with the same bytes (the build is deterministic, gzip's time 0)."""
        raw = text.encode("utf-8")
        stored, _ = self.update_or_create(
            stage=stage,
            name=name,
            defaults={
                "version": version,
                "sha256": hashlib.sha256(raw).hexdigest(),
                "size": len(raw),
                "content_gzip": gzip.compress(raw, compresslevel=6, mtime=0),
            },
        )
        return stored


class PublishedFile(models.Model):
    """A published stage's verification file (DRAW.json, entrants.csv, met-before.csv,
    earlier-groups.csv) as the stage-file page serves it (``apps/office/views.py``): built
    once from the draw, kept gzip-compressed. A published draw never changes, and DRAW.json
    of 100,000 entrants takes over a second to build (24 MB; about 3 MB stored). To have one
    built again (after a correction in the database), delete its row."""

    stage = models.ForeignKey(
        "stages.Stage", on_delete=models.CASCADE, related_name="published_files"
    )
    name = models.CharField(max_length=32)
    # What the file was built from (the stage's digests and the file format): a file stored
    # under another version is built again.
    version = models.CharField(max_length=64)
    sha256 = models.CharField(max_length=64, help_text="of the file itself (its ETag)")
    size = models.PositiveBigIntegerField(help_text="bytes before compression")
    content_gzip = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PublishedFileManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stage", "name"], name="published_file_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} of {self.stage}"
