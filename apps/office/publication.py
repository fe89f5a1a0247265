"""What a stage publishes so that anyone can verify its draw with ``silli_verify``:
DRAW.json, the entrant list (no e-mail addresses) and, in later stages, the pairs who met
before and each entrant's earlier group.

A published stage's files never change, so they are built once and stored
(``apps.groups.models.PublishedFile``, gzip-compressed): by the task the publication queues
(``store_files``), or by the first request that finds one missing (``stored_file``).
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable

from apps.entrants.services import engine_entrants
from apps.groups.models import PublishedFile
from apps.silli.draw import DrawSettings, StageDraw, draw_json, pairs_digest
from apps.silli.entrants import entrants_csv
from apps.stages.models import DrawJob, Stage

from .draw import earlier_groups, met_before_pairs


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
    payloads = list(job.group_results.order_by("number").values_list("payload", flat=True))
    header = StageDraw(
        seed=job.seed,
        settings=DrawSettings.from_dict(job.draw_settings),
        entrants_digest=stage.entrants_digest,
        met_before_digest=pairs_digest(met_before_pairs(stage)),
        earlier_groups_digest=pairs_digest(earlier_groups(stage).items()),
    ).as_dict()
    header.update(groups=payloads, digest=job.digest)
    return draw_json(header)


def public_entrants_csv(stage: Stage) -> str:
    return entrants_csv(engine_entrants(stage), public=True)


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
