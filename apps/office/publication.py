"""What a stage publishes so that anyone can verify its draw with ``silli_verify``:
DRAW.json, the entrant list (no e-mail addresses) and, in later stages, the pairs who met
before and each entrant's earlier group."""

from __future__ import annotations

import csv
import io

from apps.entrants.services import engine_entrants
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
