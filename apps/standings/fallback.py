"""What a later stage's entrants did in the tournament's earlier stages.

Two uses: the keys a later stage's standings fall back to after its own tie-breaks (Silli's
FINAL rule: the points, then the tie-breaks, of the previous stage, then of the one before),
and the points lost so far that a cumulative loss cap counts ("2 + 1 or 1 + 2").
Both read the earlier stages' stored standings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from apps.scoring import tiebreaks as tb
from apps.stages.models import Stage

from .models import GroupStanding

# An entrant with no record in an earlier stage (e.g. pre-qualified) ranks below every
# entrant who has one, on that stage's keys.
MISSING = Decimal("-Infinity")


def _earlier_rows(stage: Stage, entrant_ids: Iterable[int] | None):
    rows = GroupStanding.objects.filter(
        group__stage__tournament_id=stage.tournament_id, group__stage__order__lt=stage.order
    )
    if entrant_ids is not None:
        rows = rows.filter(entrant_id__in=list(entrant_ids))
    return rows.values_list("entrant_id", "group__stage__order", "points", "finished", "figures")


def earlier_orders(stage: Stage) -> list[int]:
    """The earlier stages' orders, the latest first (the order the fallback compares them)."""
    return list(
        Stage.objects.filter(tournament_id=stage.tournament_id, order__lt=stage.order)
        .order_by("-order")
        .values_list("order", flat=True)
    )


def fallback_keys(
    stage: Stage, chain: tuple[tb.Key, ...], entrant_ids: Iterable[int] | None = None
) -> dict[tb.PlayerId, tuple[Decimal, ...]]:
    """Per entrant (of ``entrant_ids``, or of every earlier stage), the chain's figures in
    each earlier stage, latest stage first. Empty for a first stage. Keyed by entrant id, as
    ``tiebreaks.rank`` takes its ``fallback``."""
    orders = earlier_orders(stage)
    if not orders:
        return {}
    names = [k.value for k in chain]
    by_entrant: dict[int, dict[int, dict]] = defaultdict(dict)
    for entrant_id, order, _points, _finished, figures in _earlier_rows(stage, entrant_ids):
        by_entrant[entrant_id][order] = figures
    ids = by_entrant.keys() if entrant_ids is None else entrant_ids
    keys: dict[tb.PlayerId, tuple[Decimal, ...]] = {}
    for entrant_id in ids:
        stages = by_entrant.get(entrant_id, {})
        key: tuple[Decimal, ...] = ()
        for order in orders:
            figures = stages.get(order)
            key += (
                tuple(Decimal(figures[name]) for name in names)
                if figures is not None
                else (MISSING,) * len(names)
            )
        keys[entrant_id] = key
    return keys


def points_lost_before(
    stage: Stage, points_win: Decimal, entrant_ids: Iterable[int] | None = None
) -> dict[int, Decimal]:
    """Per entrant, the points lost in all earlier stages: finished games × win − points."""
    lost: dict[int, Decimal] = defaultdict(Decimal)
    for entrant_id, _order, points, finished, _figures in _earlier_rows(stage, entrant_ids):
        lost[entrant_id] += finished * points_win - points
    return dict(lost)
