"""The draw job's three steps, called by the Celery tasks (``tasks.py``):

1. :func:`prepare` divides the stage's entrants into groups (engine step 1) and stores each
   group's members on a :class:`DrawJobGroup` row;
2. :func:`draw_one_group` seats one group (engine step 2) and stores the result on its row;
   a repeat stores the same result again (the engine is deterministic);
3. :func:`finish` replaces the stage's groups, seats and games with the job's, in one
   transaction, once every group is drawn; it runs at most once per job.

A job killed or retried at any point leaves either the previous draw or the whole new one in
the tables, never a part; the organizer can start the draw again.
"""

from __future__ import annotations

import logging

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from apps.core.audit import record
from apps.entrants.models import Entrant
from apps.entrants.services import engine_entrants
from apps.groups.models import Group, Seat
from apps.results.models import Game
from apps.silli.draw import (
    DrawError,
    DrawSettings,
    divide_stage,
    draw_group,
    groups_digest,
    met_before_map,
)

from .models import DrawJob, DrawJobGroup, Stage

log = logging.getLogger(__name__)
BATCH = 10_000


def draw_settings(stage: Stage) -> DrawSettings:
    return DrawSettings(
        games_per_player=stage.games_per_player,
        format=stage.format,
        min_group_size=stage.min_group_size,
        separate_nations=stage.separate_nations,
        avoid_rematches=stage.avoid_rematches,
        double_round_robin=stage.double_round_robin,
        balance_ratings=stage.balance_ratings,
        formula=tuple(stage.formula) if stage.formula else None,
        allowed_nation_games=stage.allowed_nation_games,
    )


def earlier_groups(stage: Stage) -> dict[str, str]:
    """Each entrant's group in the previous stage, e.g. ``{"E000017": "1/12"}``."""
    rows = Seat.objects.filter(
        stage__tournament_id=stage.tournament_id,
        stage__order=stage.order - 1,
        entrant__stage_entries__stage=stage,
    ).values_list("entrant__code", "group__stage__order", "group__number")
    return {code: f"{order}/{number}" for code, order, number in rows}


def met_before_pairs(stage: Stage, codes: list[str] | None = None) -> list[tuple[str, str]]:
    """Pairs of the stage's entrants (or of ``codes``) who played in an earlier stage."""
    members = Q(white__stage_entries__stage=stage) & Q(black__stage_entries__stage=stage)
    if codes is not None:
        members = Q(white__code__in=codes) & Q(black__code__in=codes)
    rows = Game.objects.filter(
        members,
        group__stage__tournament_id=stage.tournament_id,
        group__stage__order__lt=stage.order,
    ).values_list("white__code", "black__code")
    return list(rows)


def _mark_failed(job: DrawJob, message: str) -> None:
    """Record a job's failure (the caller holds the job's row lock)."""
    job.status = DrawJob.Status.FAILED
    job.error = message
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "error", "finished_at"])
    record("draw.failed", job.started_by, stage=job.stage, job=job.pk, error=message)


def _fail(job: DrawJob, message: str) -> None:
    with transaction.atomic():
        job = DrawJob.objects.select_for_update().get(pk=job.pk)
        if not job.finished:
            _mark_failed(job, message)


def prepare(job_id: int) -> list[int]:
    """Step 1: the division. Returns the numbers of the groups still to draw."""
    job = DrawJob.objects.select_related("stage__tournament").get(pk=job_id)
    if job.finished:
        return []
    if not job.total_groups:
        stage = job.stage
        settings = DrawSettings.from_dict(job.draw_settings)
        try:
            groups = divide_stage(engine_entrants(stage), settings, job.seed, earlier_groups(stage))
        except (DrawError, ValueError) as exc:
            _fail(job, str(exc))
            return []
        with transaction.atomic():
            DrawJobGroup.objects.filter(job=job).delete()
            DrawJobGroup.objects.bulk_create(
                DrawJobGroup(job=job, number=i, members=[e.code for e in members])
                for i, members in enumerate(groups, start=1)
            )
            job.total_groups = len(groups)
            job.status = DrawJob.Status.RUNNING
            job.save(update_fields=["total_groups", "status"])
    return list(
        job.group_results.filter(payload__isnull=True)
        .order_by("number")
        .values_list("number", flat=True)
    )


def draw_one_group(job_id: int, number: int) -> bool:
    """Step 2 for one group. Returns True when every group of the job is drawn."""
    job = DrawJob.objects.select_related("stage__tournament").get(pk=job_id)
    if job.finished:
        return False
    row = job.group_results.get(number=number)
    if row.payload is None:
        stage = job.stage
        settings = DrawSettings.from_dict(job.draw_settings)
        members = engine_entrants(stage, row.members)
        partners = met_before_map(met_before_pairs(stage, row.members))
        try:
            payload = draw_group(number, members, settings, job.seed, partners).as_dict()
        except DrawError as exc:
            _fail(job, str(exc))
            return False
        DrawJobGroup.objects.filter(pk=row.pk, payload__isnull=True).update(payload=payload)
    return not job.group_results.filter(payload__isnull=True).exists()


def finish(job_id: int) -> bool:
    """Step 3: write the draw into the stage's tables. Returns True if this call wrote it."""
    with transaction.atomic():
        job = DrawJob.objects.select_for_update().select_related("stage").get(pk=job_id)
        if job.finished or job.group_results.filter(payload__isnull=True).exists():
            return False
        stage = Stage.objects.select_for_update().get(pk=job.stage_id)
        latest = stage.draw_jobs.order_by("-created_at", "-id").first()
        if latest is None or latest.pk != job.pk:
            _mark_failed(job, "A newer draw of this stage replaced this one.")
            return False
        if stage.status not in (Stage.Status.REGISTRATION_CLOSED, Stage.Status.DRAWN):
            status = stage.get_status_display().lower()
            _mark_failed(job, f"The stage is {status}; the draw was not written.")
            return False
        payloads = list(job.group_results.order_by("number").values_list("payload", flat=True))
        digest = groups_digest(payloads)
        persist_groups(stage, payloads)
        stage.status = Stage.Status.DRAWN
        stage.seed = job.seed
        stage.draw_digest = digest
        stage.drawn_at = timezone.now()
        stage.save(update_fields=["status", "seed", "draw_digest", "drawn_at"])
        job.status = DrawJob.Status.SUCCEEDED
        job.digest = digest
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "digest", "finished_at"])
        job.group_results.update(members=[])
        record(
            "draw.finished",
            job.started_by,
            stage=stage,
            job=job.pk,
            digest=digest,
            groups=len(payloads),
        )
    return True


def fail(job_id: int, message: str) -> None:
    _fail(DrawJob.objects.get(pk=job_id), message)


# ---------------------------------------------------------------------------
# Writing the tables
# ---------------------------------------------------------------------------


def persist_groups(stage: Stage, payloads: list[dict]) -> None:
    """Replace the stage's groups, seats and games (call inside a transaction)."""
    Game.objects.filter(group__stage=stage).delete()
    Seat.objects.filter(stage=stage).delete()
    Group.objects.filter(stage=stage).delete()
    ids = dict(Entrant.objects.filter(tournament_id=stage.tournament_id).values_list("code", "id"))
    groups = Group.objects.bulk_create(
        [
            Group(
                stage=stage,
                number=p["number"],
                size=p["size"],
                formula=p["formula"],
                rule=p["rule"],
                principles_hold=p["certificate"]["principles_hold"],
                conflicts=p["certificate"]["conflicts"],
                nation_mix=_nation_mix(p),
            )
            for p in payloads
        ],
        batch_size=BATCH,
    )
    if any(g.pk is None for g in groups):
        groups = list(Group.objects.filter(stage=stage).order_by("number"))
    group_ids = {g.number: g.pk for g in groups}
    seats = (
        (stage.pk, group_ids[p["number"]], s["seat"], ids[s["entrant"]])
        for p in payloads
        for s in p["seats"]
    )
    _insert(Seat, ("stage_id", "group_id", "number", "entrant_id"), seats)
    games = (
        (group_ids[p["number"]], i, g.get("round"), ids[g["white"]], ids[g["black"]], "", False, 0)
        for p in payloads
        for i, g in enumerate(p["games"], start=1)
    )
    _insert(
        Game,
        ("group_id", "number", "round", "white_id", "black_id", "result", "adjudicated", "version"),
        games,
    )


def _nation_mix(payload: dict) -> list[list]:
    counts: dict[str, int] = {}
    for seat in payload["seats"]:
        counts[seat["nation"]] = counts.get(seat["nation"], 0) + 1
    return [[n, c] for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _insert(model, columns: tuple[str, ...], rows) -> None:
    """Bulk insert: COPY on PostgreSQL, batched ``bulk_create`` elsewhere."""
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(model._meta.db_table)
        names = ", ".join(connection.ops.quote_name(c) for c in columns)
        with (
            connection.cursor() as cursor,
            cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return
    batch = []
    for row in rows:
        batch.append(model(**dict(zip(columns, row, strict=True))))
        if len(batch) >= BATCH:
            model.objects.bulk_create(batch)
            batch = []
    if batch:
        model.objects.bulk_create(batch)


def job_progress(job: DrawJob) -> dict:
    """What a progress bar needs: status, groups done of total, and the outcome."""
    done = job.done_groups
    total = job.total_groups
    if job.status == DrawJob.Status.SUCCEEDED:
        percent = 100
    elif total:
        percent = min(99, round(100 * done / total))
    else:
        percent = 0
    return {
        "id": job.pk,
        "stage": job.stage_id,
        "seed": job.seed,
        "status": job.status,
        "status_display": job.get_status_display(),
        "total_groups": total,
        "done_groups": done,
        "percent": percent,
        "error": job.error,
        "digest": job.digest,
        "finished": job.finished,
    }
