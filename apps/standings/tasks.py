"""The coalesced standings recompute (one queued task per group at a time, or one pass over a
stage for many of its groups), the coalesced
rebuild of a stage's stored ranking (one queued task per stage at a time, for many group
recomputes), and the sweep that queues again what a dead broker or a killed worker left
behind: thin wrappers around ``groups.py``, ``ranking.py`` and the two kinds of
``freshness.py`` (which queue the first two by their names, registered here).

The recompute is acknowledged only after it ran (``acks_late``), and put back on the queue
when its pool process dies (``reject_on_worker_lost``); a message held by a worker killed as
a whole comes back after the Redis transport's ``visibility_timeout`` (config/settings.py),
and the sweep queues a new one before that. Running twice is harmless: a copy that finds
the group's mark cleared does nothing; the same holds for a ranking rebuild and its stage's
mark.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import DatabaseError

from . import groups, ranking
from .freshness import GROUP_STANDINGS, STAGE_RANKING

# outbox=False: a recompute (a rebuild) the broker did not take is kept as the group's (the
# stage's ranking) mark, which the sweep queues again (apps/core/outbox.py would only
# duplicate it).
MARKED: dict[str, Any] = {
    "outbox": False,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (DatabaseError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(name=GROUP_STANDINGS.task, **MARKED)
def recompute_group_standings(group_id: int) -> int:
    return groups.recompute_if_pending(group_id) or 0


@shared_task(name="apps.standings.tasks.recompute_stage_standings", **MARKED)
def recompute_stage_standings(stage_id: int) -> int:
    """Every pending group of the stage in one pass (many were queued at once)."""
    return groups.recompute_stage(stage_id, only_if_pending=True)


@shared_task(name=STAGE_RANKING.task, **MARKED)
def rebuild_stage_ranking(stage_id: int) -> int:
    return ranking.rebuild_ranking(stage_id) or 0


# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(outbox=False, acks_late=True, reject_on_worker_lost=True)  # type: ignore[call-overload]
def sweep_stale_standings() -> int:
    """Celery beat, every ``STANDINGS_SWEEP_SECONDS``: re-queue stale recomputes, then stale
    ranking rebuilds."""
    swept = GROUP_STANDINGS.sweep()
    STAGE_RANKING.sweep()
    return len(swept)
