"""A stage's unified ranking: every group's stored standings in one order by the
tournament's chain (then the earlier stages' keys), computed from the stored standings
(:func:`compute_stage_ranking`, :func:`ranking_order`), stored
(``models.StageRankingRow``, :func:`store_ranking`), rebuilt once for many group recomputes
(:func:`rebuild_ranking`; see ``freshness.py``), and read a page at a time
(:func:`stage_ranking_rows`, :func:`iter_stage_ranking`, :class:`StoredRanking`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.db.models.fields.json import KT
from django.utils import timezone

from apps.core import pagecache
from apps.stages.models import Stage

from .fallback import fallback_keys
from .freshness import STAGE_RANKING, RankingState, ranking_state, stale_after
from .groups import chain
from .models import GroupStanding, RankingMark, StageRankingRow, StandingsMark

# What a ranking row holds, as pages, API and CSV read it (with ``place``).
RANKING_FIELDS = (
    "entrant_id",
    "group__number",
    "seat",
    "entrant__code",
    "entrant__name",
    "entrant__nation",
    "entrant__rating",
    "points",
    "figures",
    "finished",
    "scheduled",
    "withdrawn",
)
# What a stored row copies of the entrant's group standing (the entrant's code, name, nation
# and rating are read from the entrant, the group's number from the group, when shown).
COPIED_COLUMNS = (
    "entrant_id",
    "group_id",
    "seat",
    "points",
    "figures",
    "finished",
    "scheduled",
    "withdrawn",
)
# Rows a rebuild inserts per statement.
RANKING_BATCH = 20_000


def _places(keys: list[tuple]) -> tuple[list[int], list[str]]:
    """The ranking of entrants whose keys are ``keys`` (given by group number and position in
    the group): their indices from the greatest key down, equal keys in the given order (a
    stable sort), and each one's place (``"3"``, or ``"3-4"`` shared by equal keys)."""
    order = sorted(range(len(keys)), key=keys.__getitem__, reverse=True)
    places = [""] * len(order)
    start = 0
    while start < len(order):
        key = keys[order[start]]
        end = start
        while end + 1 < len(order) and keys[order[end + 1]] == key:
            end += 1
        label = str(start + 1) if start == end else f"{start + 1}-{end + 1}"
        for i in range(start, end + 1):
            places[i] = label
        start = end + 1
    return order, places


def _keys(stage: Stage, rows: Iterable[tuple[int, Iterable[str]]]) -> list[tuple]:
    """Each entrant's key, from (entrant id, the chain's figures as text): the chain's
    figures, then the earlier stages' (Silli's FINAL rule)."""
    if stage.order == 1:
        return [tuple(map(Decimal, figures)) for _entrant, figures in rows]
    fallback = fallback_keys(stage, chain(stage.tournament))
    return [tuple(map(Decimal, figures)) + fallback.get(entrant, ()) for entrant, figures in rows]


def _stage_standings(stage: Stage):
    return GroupStanding.objects.filter(group__stage=stage).order_by("group__number", "position")


def compute_stage_ranking(stage: Stage) -> list[dict]:
    """The unified ranking of a stage computed now from every group's stored standings (one
    query, plain dicts of :data:`RANKING_FIELDS` and ``place``): every entrant ordered by the
    chain, then the earlier stages' keys; equal on every key, a shared place (e.g. ``"3-4"``)
    in the order of group and position. What a rebuild stores (:func:`ranking_order`);
    pages read the stored rows instead (:func:`stage_ranking_rows`)."""
    names = [k.value for k in chain(stage.tournament)]
    rows = [
        dict(zip(RANKING_FIELDS, values, strict=True))
        for values in _stage_standings(stage).values_list(*RANKING_FIELDS)
    ]
    keys = _keys(stage, [(r["entrant_id"], [r["figures"][k] for k in names]) for r in rows])
    order, places = _places(keys)
    ranked = []
    for index, place in zip(order, places, strict=True):
        row = rows[index]
        row["place"] = place
        ranked.append(row)
    return ranked


def ranking_order(stage: Stage) -> list[tuple[int, int, str]]:
    """:func:`compute_stage_ranking` from what it needs only: (entrant, group, place) in
    ranking order. The chain's figures are read as text from the stored JSON; the rest of
    each row is copied by the database (:func:`store_ranking`)."""
    figures = {f"key_{k.value}": KT(f"figures__{k.value}") for k in chain(stage.tournament)}
    rows = list(
        _stage_standings(stage).annotate(**figures).values_list("entrant_id", "group_id", *figures)
    )
    order, places = _places(_keys(stage, [(row[0], row[2:]) for row in rows]))
    return [
        (rows[index][0], rows[index][1], place) for index, place in zip(order, places, strict=True)
    ]


# ---------------------------------------------------------------------------
# The stored ranking: rebuilt once for many changes
# ---------------------------------------------------------------------------


def rebuild_ranking(stage_id: int, *, wait_for_groups: bool = True) -> int | None:
    """The rebuild task: store the stage's ranking computed from its groups' stored
    standings, if its mark is set; returns the number of rows, or None when there was
    nothing to do (the mark cleared by an earlier copy of the task) or the rebuild waits.

    Runs in one transaction under the stage's ranking lock, so two rebuilds (two workers, a
    duplicate) take turns, and the second finds the mark cleared; readers see the previous
    rows until it commits. The mark's count is read under the lock, before the standings: it
    is cleared only if no change was marked meanwhile (else the next rebuild is queued).

    While groups of the stage changed lately still wait for their recomputes (an import, a
    publication, a forced recompute), the rebuild waits for them (``wait_for_groups``): the
    last of those recomputes queues it again, so many group recomputes cost one rebuild. A
    ranking marked longer ago than :func:`stale_after` waits no more.
    """
    started = timezone.now()
    with transaction.atomic():
        STAGE_RANKING.lock(stage_id)
        # The mark, its stage and whether groups wait for their recomputes: one query.
        waiting = StandingsMark.objects.filter(
            group__stage_id=OuterRef("stage_id"), pending_since__gt=started - stale_after()
        )
        mark = (
            RankingMark.objects.filter(stage_id=stage_id, pending_since__isnull=False)
            .select_related("stage__tournament")
            .annotate(waiting=Exists(waiting))
            .first()
        )
        if mark is None:
            return None
        seen = mark.changes
        since = mark.pending_since  # not None: the filter above
        if (
            wait_for_groups
            and mark.waiting
            and since is not None
            and since > started - stale_after()
        ):
            STAGE_RANKING.wait(stage_id, seen, started)  # the groups' recomputes queue it
            return None
        count = store_ranking(mark.stage, ranking_order(mark.stage), stored=mark.entrants)
        STAGE_RANKING.settle(stage_id, seen, started, built_at=timezone.now(), entrants=count)
        return count


def store_ranking(stage: Stage, order: list[tuple[int, int, str]], *, stored: int = 0) -> int:
    """Store the rows of ``order`` ((entrant, group, place) in ranking order,
    :func:`ranking_order`) as the stage's ranking, which had ``stored`` rows; returns how
    many. Call it inside the transaction that holds the stage's ranking lock.

    One ``INSERT … SELECT`` per :data:`RANKING_BATCH` rows, each replacing the row stored at
    its position unless it is the same: the order comes as parameters (arrays on PostgreSQL,
    a JSON array elsewhere), every other column is copied from the entrant's stored group
    standing inside the database — nothing of the rows (their figures' JSON) goes through
    Python. Positions past the new end, if the ranking got shorter, are deleted.
    """
    quote = connection.ops.quote_name
    ranking = quote(StageRankingRow._meta.db_table)
    columns = ("place", *COPIED_COLUMNS)
    names = ", ".join(quote(c) for c in columns)
    values = ", ".join(f"s.{quote(c)}" for c in COPIED_COLUMNS)
    replace = ", ".join(f"{quote(c)} = excluded.{quote(c)}" for c in columns)
    # A row that stays the same is not written again (after one result, most of them).
    changed = " OR ".join(f"r.{quote(c)} <> excluded.{quote(c)}" for c in columns)
    standings = quote(GroupStanding._meta.db_table)
    with connection.cursor() as cursor:
        for start in range(0, len(order), RANKING_BATCH):
            batch = order[start : start + RANKING_BATCH]
            params: list[Any]
            if connection.vendor == "postgresql":
                ranked, source = (
                    "(%s + o.n)::integer, o.place",
                    "unnest(%s::bigint[], %s::bigint[], %s::text[])"
                    " WITH ORDINALITY AS o(entrant_id, group_id, place, n)"
                    f" JOIN {standings} s"
                    " ON s.group_id = o.group_id AND s.entrant_id = o.entrant_id",
                )
                params = [
                    start,
                    [entrant for entrant, _group, _place in batch],
                    [group for _entrant, group, _place in batch],
                    [place for _entrant, _group, place in batch],
                ]
            else:
                ranked, source = (
                    "%s + o.key + 1, json_extract(o.value, '$[2]')",
                    f"json_each(%s) o JOIN {standings} s"
                    " ON s.group_id = json_extract(o.value, '$[1]')"
                    " AND s.entrant_id = json_extract(o.value, '$[0]')",
                )
                params = [start, json.dumps(batch)]
            cursor.execute(
                f"INSERT INTO {ranking} AS r (stage_id, position, {names})"
                f" SELECT %s, {ranked}, {values} FROM {source} WHERE true"
                f" ON CONFLICT (stage_id, position) DO UPDATE SET {replace} WHERE {changed}",
                [stage.pk, *params],
            )
        if len(order) < stored:
            cursor.execute(
                f"DELETE FROM {ranking} WHERE stage_id = %s AND position > %s",
                [stage.pk, len(order)],
            )
    pagecache.bump([(pagecache.PLAY, stage.pk)])  # the stage's cached pages, on commit
    return len(order)


# ---------------------------------------------------------------------------
# Reading the stored ranking
# ---------------------------------------------------------------------------


def _stored(stage_id: int):
    return StageRankingRow.objects.filter(stage_id=stage_id).values_list(*RANKING_FIELDS, "place")


def _row(values: tuple) -> dict:
    return dict(zip((*RANKING_FIELDS, "place"), values, strict=True))


def stage_ranking_rows(stage_id: int, start: int, stop: int) -> list[dict]:
    """The stored ranking's rows ``start`` to ``stop`` (0-based, ``stop`` excluded), as dicts
    of :data:`RANKING_FIELDS` and ``place``: one query on the (stage, position) index,
    whichever page."""
    if stop <= start:
        return []
    rows = _stored(stage_id).filter(position__gt=start, position__lte=stop)
    return [_row(values) for values in rows.order_by("position")]


def iter_stage_ranking(stage_id: int, chunk_size: int = 2000) -> Iterator[dict]:
    """Every row of the stored ranking in order, read ``chunk_size`` at a time (a server-side
    cursor on PostgreSQL): a file of 100,000 rows never holds them all."""
    for values in _stored(stage_id).order_by("position").iterator(chunk_size=chunk_size):
        yield _row(values)


class StoredRanking:
    """The stored ranking as a paginator's object list: its length is the stored count, and a
    slice reads those positions only (Django's ``Paginator`` and DRF's pagination)."""

    def __init__(self, stage: Stage, state: RankingState) -> None:
        self.stage_id = stage.pk
        self.entrants = state.entrants

    def count(self) -> int:
        return self.entrants

    def __len__(self) -> int:
        return self.entrants

    def __getitem__(self, index: slice) -> list[dict]:
        if not isinstance(index, slice) or index.step not in (None, 1):
            raise TypeError("a stored ranking is read by slices of positions")
        start, stop, _step = index.indices(self.entrants)
        return stage_ranking_rows(self.stage_id, start, stop)

    def __iter__(self) -> Iterator[dict]:
        return iter_stage_ranking(self.stage_id)


def stage_ranking(stage: Stage) -> list[dict]:
    """The unified ranking of a stage: every group's stored standings ordered by the chain;
    entrants equal on every key share a place (``place`` is e.g. ``"3"`` or ``"3-4"``).

    Plain dicts of :data:`RANKING_FIELDS` and ``place``: the stored ranking when it is up to
    date, else computed now from the stored standings (the same answer, for callers that
    must not wait for a rebuild, e.g. qualification).
    """
    if ranking_state(stage).fresh:
        return list(iter_stage_ranking(stage.pk))
    return compute_stage_ranking(stage)
