"""What a stage publishes so that anyone can verify its draw with ``silli_verify``:
DRAW.json, the entrant list (no e-mail addresses) and, in later stages, the pairs who met
before and each entrant's earlier group.

A published stage's files never change, so they are built once and stored
(``apps.groups.models.PublishedFile``, gzip-compressed): by the task the publication queues
(``store_files``), or by the first request that finds one missing (``stored_file``).

Being written once, they need no freshness mark (``apps/core/freshness.py``, which keeps
standings and rankings fresh through many changes); a lost task is healed all the same: the
publication's task is kept in the outbox when the broker does not take it, and sent by the
outbox's sweep (``apps/core/outbox.py``); a worker killed while running it hands it back
(``acks_late``); and a file still missing is built by the first request for it.

How far the work a publication queues has come (the standings of every group, the stage's
ranking, these files) is read by :func:`publication_progress`, for the publication's progress
page, its JSON and the API.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, Sum
from django.utils.translation import gettext as _

from apps.core.errors import ActionError, ErrorCode
from apps.entrants.services import engine_entrants
from apps.groups.models import Group, PublishedFile
from apps.silli.draw import DrawSettings, StageDraw, draw_json, pairs_digest
from apps.silli.entrants import entrants_csv
from apps.stages.models import DrawJob, Stage
from apps.standings.freshness import ranking_state

from .draw import earlier_groups, met_before_pairs
from .swiss.late import late_entrant_codes


def draw_file(stage: Stage) -> str | None:
    """The stage's DRAW.json, rebuilt from the job that wrote its groups (None if undrawn)."""
    job = (
        DrawJob.objects.filter(
            stage=stage, status=DrawJob.Status.SUCCEEDED, digest=stage.draw_digest
        )
        .exclude(digest="")
        .order_by("-finished_at", "-id")
        .first()
    )
    if job is None:
        return None
    stored = job.group_results.order_by("number").values_list("payload", flat=True)
    texts = [t for t in stored if t is not None]  # a succeeded job drew every group
    header = StageDraw(
        seed=job.seed,
        settings=DrawSettings.from_dict(job.draw_settings),
        entrants_digest=stage.entrants_digest,
        met_before_digest=pairs_digest(met_before_pairs(stage)),
        earlier_groups_digest=pairs_digest(earlier_groups(stage).items()),
    ).as_dict()
    header.update(digest=job.digest)
    return draw_json(header, texts)


def public_entrants_csv(stage: Stage) -> str:
    """The entrant list the draw was made from: a Swiss stage's late entrants (seated after
    the draw) are not in it, so the draw still verifies."""
    entrants = engine_entrants(stage)
    if stage.is_swiss:
        late = set(late_entrant_codes(stage))
        entrants = [e for e in entrants if e.code not in late]
    return entrants_csv(entrants, public=True)


def _two_columns(header: tuple[str, str], rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(sorted(rows))
    return out.getvalue()


def met_before_csv(stage: Stage) -> str:
    return _two_columns(("a", "b"), met_before_pairs(stage))


def earlier_groups_csv(stage: Stage) -> str:
    return _two_columns(("code", "group"), earlier_groups(stage).items())


# name -> (content type, builder); a builder answers None when the stage has no draw.
FILES: dict[str, tuple[str, Callable[[Stage], str | None]]] = {
    "DRAW.json": ("application/json", draw_file),
    "entrants.csv": ("text/csv", public_entrants_csv),
    "met-before.csv": ("text/csv", met_before_csv),
    "earlier-groups.csv": ("text/csv", earlier_groups_csv),
}
# Part of every stored file's version: change it when the files' format changes (the
# builders above, the engine's draw_json or entrants_csv), so the stored copies are rebuilt.
FILES_FORMAT = "1"


def file_version(stage: Stage, name: str) -> str:
    """What a stored file was built from: the file format, the draw's and the entrant list's
    digests (a redraw or another entrant list changes them)."""
    key = "|".join((FILES_FORMAT, name, stage.draw_digest, stage.entrants_digest))
    return hashlib.sha256(key.encode()).hexdigest()


def is_final(stage: Stage) -> bool:
    """Whether the stage's files can no longer change: its draw is published."""
    return bool(stage.is_public and stage.published_at and stage.draw_digest)


def stored_file(stage: Stage, name: str) -> PublishedFile | None:
    """The published stage's file ``name`` as stored (its content not loaded yet), built and
    stored first if it is missing or was built from something else; None when there is no
    such file."""
    if name not in FILES or not is_final(stage):
        return None
    version = file_version(stage, name)
    stored = PublishedFile.objects.stored(stage, name, version)
    if stored is None:
        text = FILES[name][1](stage)
        if text is None:
            return None
        stored = PublishedFile.objects.store(stage, name, version, text)
    return stored


def store_files(stage_id: int) -> int:
    """Build and store every file of a published stage that is not stored yet (the step the
    publication queues; idempotent, and nothing for a stage that is not published). How many
    files the stage has stored."""
    stage = Stage.objects.filter(pk=stage_id).first()
    if stage is None or not is_final(stage):
        return 0
    return sum(stored_file(stage, name) is not None for name in FILES)


# ---------------------------------------------------------------------------
# The publication's progress
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One part of the work a publication queues: ``done`` of ``total``, and whether it is
    finished (the ranking may hold every entrant before its last rebuild is stored)."""

    done: int
    total: int
    finished: bool

    @property
    def percent(self) -> int:
        if self.finished:
            return 100
        if not self.total:
            return 0
        return min(99, 100 * self.done // self.total)

    def as_dict(self) -> dict:
        return {
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "finished": self.finished,
        }


@dataclass(frozen=True)
class PublicationProgress:
    """How far the work queued by a stage's publication has come: each group's standings
    computed, the stage's ranking stored with every seated entrant, the verification files
    stored. (The start-list e-mails are not counted: what is recorded of them,
    ``notifications.SentNotification``, is one row per message keyed by text, with nothing
    for a group whose players get none, so it cannot tell cheaply which groups are done.)"""

    stage_id: int
    published_at: datetime | None
    standings: Step
    ranking: Step
    files: Step

    @property
    def steps(self) -> tuple[Step, Step, Step]:
        return (self.standings, self.ranking, self.files)

    @property
    def finished(self) -> bool:
        return all(step.finished for step in self.steps)

    @property
    def percent(self) -> int:
        if self.finished:
            return 100
        return min(99, sum(step.percent for step in self.steps) // len(self.steps))

    @property
    def status(self) -> str:
        """As a draw job's: ``running`` until everything is done, then ``succeeded``."""
        return "succeeded" if self.finished else "running"

    @property
    def status_display(self) -> str:
        return _("Complete") if self.finished else _("In progress")

    def as_dict(self) -> dict:
        """The JSON of the API and of the progress page's polling."""
        return {
            "stage": self.stage_id,
            "published_at": self.published_at,
            "status": self.status,
            "status_display": self.status_display,
            "percent": self.percent,
            "finished": self.finished,
            "standings": self.standings.as_dict(),
            "ranking": self.ranking.as_dict(),
            "files": self.files.as_dict(),
        }


def publication_progress(stage: Stage) -> PublicationProgress | None:
    """How far the work queued by the stage's publication has come (None: the stage is not
    published). Three queries whatever the number of groups: one aggregate of the groups,
    the ranking's mark, the stored files' versions.

    A group's standings count as done once computed since the publication, or when no
    recompute of them is pending (a stage published before ``standings_at`` was kept), so a
    result entered later, which marks its group pending again, does not take the
    publication back. The ranking is done once every group is, and its stored rows hold
    every seated entrant (each group's standings, empty or not, have a row per seat) or it
    misses no change at all.
    """
    if not is_final(stage):
        return None
    computed = Q(standings_at__gte=stage.published_at) | Q(standings_pending=False)
    groups = Group.objects.filter(stage=stage).aggregate(
        total=Count("pk"), done=Count("pk", filter=computed), seats=Sum("size")
    )
    total = groups["total"]
    standings = Step(groups["done"], total, groups["done"] >= total)
    seats = groups["seats"] or 0
    state = ranking_state(stage)
    built = state.built_at is not None
    ranked = min(state.entrants, seats) if built else 0
    ranking = Step(
        ranked,
        seats,
        standings.finished and built and (state.fresh or state.entrants >= seats),
    )
    versions = PublishedFile.objects.filter(stage=stage, name__in=list(FILES)).values_list(
        "name", "version"
    )
    stored = sum(version == file_version(stage, name) for name, version in versions)
    files = Step(stored, len(FILES), stored >= len(FILES))
    return PublicationProgress(stage.pk, stage.published_at, standings, ranking, files)


def not_published() -> ActionError:
    """The refusal of a publication's progress for a stage that is not published."""
    return ActionError(
        ErrorCode.WRONG_STATUS,
        _("This stage is not published yet: there is no publication to follow."),
    )
