"""Keeping stored standings and rankings fresh: the two kinds of stored derived data of this
app, on the one mechanism of ``apps/core/freshness.py`` (mark → one queued rebuild → sweep →
queue again).

**A group's standings** (:data:`GROUP_STANDINGS`): a result change marks its group
(:func:`schedule_recompute`, in the change's transaction) and queues one recompute on commit;
further changes queue nothing more until it ran (coalesced). The recompute
(``groups.recompute_group``) clears the mark only if no change was marked meanwhile. Many
groups of one stage queued at once (``STANDINGS_STAGE_BATCH`` or more) get one pass over the
stage instead (``groups.recompute_stage``, the task ``recompute_stage_standings``).
Pages, API and qualification say "being updated since" while a mark is set
(:func:`pending_since`, :func:`stage_pending`).

**A stage's unified ranking** (:data:`STAGE_RANKING`), one level up: each group recompute
marks its stage's ranking (:func:`mark_rankings`) in its own transaction, and the rebuild
(``ranking.rebuild_ranking``) waits while groups of the stage changed lately still wait for
their recomputes — many group recomputes (an import, a publication) cost one rebuild. Pages
read its state with :func:`ranking_state`.

A mark older than ``STANDINGS_STALE_SECONDS`` whose task was asked for longer ago than that
is queued again by the periodic sweep (``tasks.sweep_stale_standings``) and by the next
change; recomputes and rebuilds are idempotent, so a duplicate is harmless.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from apps.core.freshness import Derived
from apps.groups.models import Group
from apps.stages.models import Stage

from .models import GroupStanding, RankingMark, StandingsMark


def stale_after() -> timedelta:
    """How long a mark may wait for its recompute (rebuild) before it is queued again."""
    return timedelta(seconds=getattr(settings, "STANDINGS_STALE_SECONDS", 60))


def stage_batch() -> int:
    """How many groups of one stage queued at once are recomputed by one pass over the stage
    (``groups.recompute_stage``) rather than a task each (0: never)."""
    return int(getattr(settings, "STANDINGS_STAGE_BATCH", 10))


def groups_by_stage(group_ids: list[int]) -> dict[int, list[int]]:
    """The groups by their stage (one query)."""
    by_stage: dict[int, list[int]] = {}
    rows = Group.objects.filter(pk__in=group_ids).values_list("stage_id", "pk")
    for stage_id, group_id in rows:
        by_stage.setdefault(stage_id, []).append(group_id)
    return by_stage


GROUP_STANDINGS = Derived(
    mark_model=StandingsMark,
    key="group_id",
    task="apps.standings.tasks.recompute_group_standings",
    countdown=2,
    stale_after=stale_after,
    lock_class=0x5354,  # "ST"
    what="Standings",
    step="recompute",
    item="group",
    mirror=(Group, "standings_pending"),
    # Many groups of one stage at once (an import, a publication, a forced recompute, the
    # sweep after an outage): one pass over the stage recomputes them all.
    batch_task="apps.standings.tasks.recompute_stage_standings",
    batch_of=groups_by_stage,
    batch_min=stage_batch,
)

# The class of the stage's standings lock (PostgreSQL advisory, with the stage's id): a
# group's recompute holds it shared, the stage's pass exclusive (apps/core/locking.py).
STAGE_STANDINGS_LOCK = 0x5347  # "SG"

STAGE_RANKING = Derived(
    mark_model=RankingMark,
    key="stage_id",
    task="apps.standings.tasks.rebuild_stage_ranking",
    # The recomputes of the other groups changed at the same time (an import, a
    # publication) are counted by the one rebuild too.
    countdown=5,
    stale_after=stale_after,
    lock_class=0x524B,  # "RK"
    what="Ranking",
    step="rebuild",
    item="stage",
    built="built_at",
)


# ---------------------------------------------------------------------------
# A group's standings
# ---------------------------------------------------------------------------


def schedule_recompute(group_id: int) -> bool:
    """Mark the group's standings pending and queue its recompute (on commit) unless one was
    asked for lately. True if this call queues it.

    Inside the transaction of the change, the mark commits with the change (call it there);
    outside one (e.g. from ``on_commit``) it is written and the task queued at once.
    """
    return bool(GROUP_STANDINGS.schedule([group_id]))


def schedule_recomputes(group_ids: Iterable[int]) -> list[int]:
    """:func:`schedule_recompute` for several groups at once (a publication marks them all);
    returns the groups whose recompute this call queues."""
    return GROUP_STANDINGS.schedule(group_ids)


def pending_since(group: Group) -> datetime | None:
    """Since when the group's stored standings may miss changes (None: up to date)."""
    return (
        StandingsMark.objects.filter(group=group, pending_since__isnull=False)
        .values_list("pending_since", flat=True)
        .first()
    )


@dataclass(frozen=True)
class StagePending:
    """The groups of a stage whose standings are being updated, and the oldest mark."""

    groups: int
    since: datetime | None


def stage_pending(stage: Stage) -> StagePending:
    found = StandingsMark.objects.filter(group__stage=stage, pending_since__isnull=False).aggregate(
        groups=Count("pk"), since=Min("pending_since")
    )
    return StagePending(found["groups"], found["since"])


# ---------------------------------------------------------------------------
# A stage's ranking
# ---------------------------------------------------------------------------


def mark_rankings(stage: Stage) -> list[int]:
    """Mark the stored ranking of ``stage`` as missing a change of its standings (and, for a
    closed stage, the stored rankings of the tournament's later stages: its figures are
    their fallback keys; no later stage has entrants before its earlier stage closed), and
    queue their rebuilds on commit. Call it in the transaction that stores the change;
    returns the stages queued: newly marked, or asked for longer ago than
    :func:`stale_after` — a stage marked again before its rebuild ran queues nothing more.
    """
    stages = [stage.pk]
    if stage.status == Stage.Status.CLOSED:
        later = RankingMark.objects.filter(
            stage__tournament_id=stage.tournament_id, stage__order__gt=stage.order
        )
        stages += later.values_list("stage_id", flat=True)
    return STAGE_RANKING.schedule(stages)


@dataclass(frozen=True)
class RankingState:
    """A stage's stored ranking: how many rows, when built (None: never), since when it may
    miss a change of the standings (None: up to date), and whether it has a mark at all."""

    entrants: int = 0
    built_at: datetime | None = None
    pending_since: datetime | None = None
    requested_at: datetime | None = None
    marked: bool = False

    @property
    def fresh(self) -> bool:
        return self.built_at is not None and self.pending_since is None

    def due(self, now: datetime) -> bool:
        """Whether its rebuild is overdue (``STAGE_RANKING.due``)."""
        return STAGE_RANKING.is_due(now, self.pending_since, self.requested_at, self.built_at)


def _read_state(stage_id: int) -> RankingState:
    found = (
        RankingMark.objects.filter(stage_id=stage_id)
        .values_list("entrants", "built_at", "pending_since", "requested_at")
        .first()
    )
    if found is None:
        return RankingState()
    entrants, built_at, since, requested_at = found
    return RankingState(entrants, built_at, since, requested_at, marked=True)


def ranking_state(stage: Stage, *, heal: bool = False) -> RankingState:
    """The state of the stage's stored ranking (one query).

    ``heal`` (the pages and the API): a ranking whose rebuild is overdue is queued again, as
    the sweep would (at most once per :func:`stale_after`), and a stage with standings but
    no ranking yet (stored before rankings were) gets its first rebuild."""
    state = _read_state(stage.pk)
    if not heal or state.fresh:
        return state
    now = timezone.now()
    if state.marked:
        if not state.due(now):
            return state
        queued = STAGE_RANKING.heal(stage.pk, now)
    elif GroupStanding.objects.filter(group__stage=stage).exists():
        with transaction.atomic():
            queued = bool(STAGE_RANKING.schedule([stage.pk]))
    else:
        return state
    # Tasks run in this process (no broker): the ranking may be rebuilt already.
    return _read_state(stage.pk) if queued else state
