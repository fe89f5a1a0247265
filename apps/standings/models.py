"""Stored standings: one row per entrant of a group, recomputed after result changes, and
the stage's unified ranking built from them; each with its freshness mark
(``apps/core/freshness.py``, declared in ``freshness.py``)."""

from __future__ import annotations

from django.db import models

from apps.core.freshness import Mark

FIGURES = (
    "points",
    "games",
    "gms",
    "rgp",
    "bh",
    "bh_c1",
    "bh_c2",
    "ts",
    "ts_cut1",
    "ts_median",
    "sb",
    "wins",
    "black_games",
)


class GroupStanding(models.Model):
    """An entrant's row in their group's standings (figures as exact decimals in JSON).

    Derived rows, written by a recompute from the group's seats under the group's lock,
    100,000 at a time by a stage's pass: no key check per row in the database (at commit,
    they cost as much as writing the rows) and no index on the group alone (the unique
    (group, entrant) index leads with it). Deleting a group or an entrant deletes its rows
    (Django's cascade), as before.
    """

    group = models.ForeignKey(
        "groups.Group",
        on_delete=models.CASCADE,
        related_name="standings",
        db_constraint=False,
        db_index=False,  # standing_entrant_unique's first column
    )
    entrant = models.ForeignKey(
        "entrants.Entrant", on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    seat = models.PositiveIntegerField()
    position = models.PositiveIntegerField(help_text="order in the group, shared places by seat")
    place = models.CharField(max_length=16, help_text="e.g. 3 or 3-4")
    points = models.DecimalField(max_digits=7, decimal_places=2)
    finished = models.PositiveIntegerField(default=0)
    scheduled = models.PositiveIntegerField(default=0)
    withdrawn = models.BooleanField(default=False)
    figures = models.JSONField(default=dict)
    # The fingerprint of the group's rows a recompute wrote together (``groups._fingerprint``);
    # None when written another way (the stage's pass, SQLite): a recompute then writes the
    # rows again.
    fingerprint = models.BigIntegerField(null=True, editable=False)

    class Meta:
        ordering = ["group", "position"]
        constraints = [
            models.UniqueConstraint(fields=["group", "entrant"], name="standing_entrant_unique"),
            models.UniqueConstraint(fields=["group", "position"], name="standing_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.place}. {self.entrant_id} in {self.group_id}"


class StandingsMark(Mark):
    """A group whose stored standings may miss a change ("recompute pending").

    Set in the transaction of the change (or right after it), cleared only by a recompute
    that counted every change marked before it began: ``changes`` counts the marks, and a
    recompute clears the mark only if the count is the one it read when it started. A mark
    left behind (a recompute never queued, or lost with its worker) is found by the sweep
    (``freshness.GROUP_STANDINGS``) once it is older than ``STANDINGS_STALE_SECONDS``.
    ``groups.Group.standings_pending`` mirrors ``pending_since is not None``.
    """

    group = models.OneToOneField(
        "groups.Group",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="standings_mark",
    )

    def __str__(self) -> str:
        state = (
            f"pending since {self.pending_since:%Y-%m-%d %H:%M:%S}"
            if self.pending_since
            else "up to date"
        )
        return f"standings of group {self.group_id}: {state}"


class StageRankingRow(models.Model):
    """An entrant's row in the stage's stored unified ranking: every group's stored standings
    in one order by the tournament's chain (``ranking.ranking_order``).

    Rebuilt whole by ``ranking.rebuild_ranking`` after the standings of the stage's groups
    change (see :class:`RankingMark`); pages, API and CSV read it a page at a time by its key,
    (stage, position) with positions 1, 2, … without gaps. Code, name, nation and rating are
    read from the entrant, the group's number from the group.

    Derived rows, written 100,000 at a time: no key check per row in the database and no index
    but the key (together they cost more than the rows). Deleting the stage deletes them;
    a group or an entrant is never deleted from a stage that has a ranking (a published
    one) but with its stage, and a row left behind by one would be replaced by the next
    rebuild (pages join the entrant and the group, so it would not be shown meanwhile).
    """

    pk = models.CompositePrimaryKey("stage", "position")
    stage = models.ForeignKey(
        "stages.Stage",
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,  # the key's first column
    )
    position = models.PositiveIntegerField(
        help_text="1, 2, …: the order of the ranking (equal keys by group, then group position)"
    )
    place = models.CharField(max_length=16, help_text="e.g. 3 or 3-4")
    group = models.ForeignKey(
        "groups.Group",
        on_delete=models.DO_NOTHING,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    entrant = models.ForeignKey(
        "entrants.Entrant",
        on_delete=models.DO_NOTHING,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    seat = models.PositiveIntegerField()
    points = models.DecimalField(max_digits=7, decimal_places=2)
    figures = models.JSONField(default=dict)
    finished = models.PositiveIntegerField(default=0)
    scheduled = models.PositiveIntegerField(default=0)
    withdrawn = models.BooleanField(default=False)

    class Meta:
        ordering = ["stage", "position"]

    def __str__(self) -> str:
        return f"{self.place}. {self.entrant_id} in the ranking of {self.stage_id}"


class RankingMark(Mark):
    """The state of a stage's stored ranking: when it was last rebuilt, how many rows it has,
    and whether it may miss a change of its groups' standings ("being updated").

    The same mark as :class:`StandingsMark`, one per stage: set by each group recompute in its
    own transaction (and by a recompute of an earlier stage's group, whose figures are the
    later stages' fallback keys), cleared by a rebuild that counted every change marked before
    it began (``changes``). A mark left behind is found by the sweep
    (``freshness.STAGE_RANKING``).
    """

    stage = models.OneToOneField(
        "stages.Stage",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="ranking_mark",
    )
    built_at = models.DateTimeField(
        null=True, blank=True, help_text="when the stored ranking was last rebuilt; empty: never"
    )
    entrants = models.PositiveIntegerField(default=0, help_text="rows of the stored ranking")

    def __str__(self) -> str:
        state = (
            f"pending since {self.pending_since:%Y-%m-%d %H:%M:%S}"
            if self.pending_since
            else "up to date"
        )
        return f"ranking of stage {self.stage_id}: {state}"


class RankingFile(models.Model):
    """The stage's stored ranking as its CSV file (``ranking.csv``), gzip-compressed: written
    by each rebuild of the ranking (``ranking.rebuild_ranking``) in the same transaction as
    the rows, so it is the file of the rows the ranking page shows, and served as stored
    with its digest as ETag — 100,000 rows are about 2 MB compressed; writing them for each
    request took seconds.

    The entrants' names, codes, nations and ratings are written into it: ``version`` holds
    the page versions of the stage and its tournament (``apps.core.pagecache``: an entrant's
    change moves them) as they were when it was written. While they differ, the file is
    written from the stored rows for each request instead (``views.stage_ranking_csv``),
    until the next rebuild writes it again."""

    stage = models.OneToOneField(
        "stages.Stage",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="ranking_file",
    )
    version = models.CharField(max_length=64, help_text="the page versions it was written at")
    sha256 = models.CharField(max_length=64, help_text="of the file itself (its ETag)")
    size = models.PositiveBigIntegerField(help_text="bytes before compression")
    content_gzip = models.BinaryField()
    built_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"ranking file of stage {self.stage_id}"
