"""A stage's unified ranking: every group's stored standings in one order by the
tournament's chain (then the earlier stages' keys), computed from the stored standings
(:func:`compute_stage_ranking`, :func:`ranking_order`), stored
(``models.StageRankingRow``, :func:`store_ranking`), rebuilt once for many group recomputes
(:func:`rebuild_ranking`; see ``freshness.py``), and read a page at a time
(:func:`stage_ranking_rows`, :func:`iter_stage_ranking`, :class:`StoredRanking`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.fields.json import KT
from django.utils import timezone

from apps.core import pagecache
from apps.core.csvfiles import FORMULA_PREFIXES, safe_writer
from apps.core.models import PageVersion
from apps.entrants.models import Entrant
from apps.groups.models import Group
from apps.stages.models import Stage

from .fallback import fallback_keys
from .freshness import STAGE_RANKING, RankingState, ranking_state, stale_after
from .groups import chain
from .models import GroupStanding, RankingFile, RankingMark, StageRankingRow, StandingsMark

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
        # The page versions first: an entrant changed after this read leaves them newer than
        # the file's, which is then not served (see models.RankingFile).
        version = file_version(mark.stage)
        count = store_ranking(mark.stage, ranking_order(mark.stage), stored=mark.entrants)
        store_ranking_file(mark.stage, version)
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


# ---------------------------------------------------------------------------
# The ranking's CSV file, stored with the ranking
# ---------------------------------------------------------------------------

# Rows of the ranking CSV written per chunk of a file written while it is sent.
CSV_CHUNK_ROWS = 1000


def csv_header(stage: Stage) -> list[str]:
    keys = [k.value for k in chain(stage.tournament)][1:]
    return ["place", "group", "seat", "code", "name", "nation", "rating", "points", *keys] + [
        "finished",
        "scheduled",
        "withdrawn",
    ]


def ranking_csv(
    stage: Stage, rows: Iterable[dict] | None = None, chunk_rows: int | None = None
) -> Iterator[str]:
    """The ranking as CSV, in chunks (``chunk_rows``, default :data:`CSV_CHUNK_ROWS`):
    place, group, seat, entrant, points, the chain's tie-breaks, games. ``rows``: the
    stage's stored ranking, read as the file is sent."""
    chunk = chunk_rows or CSV_CHUNK_ROWS
    keys = [k.value for k in chain(stage.tournament)][1:]
    out = io.StringIO()
    writer = safe_writer(out)
    writer.writerow(csv_header(stage))
    for number, row in enumerate(iter_stage_ranking(stage.pk) if rows is None else rows):
        if number % chunk == 0:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
        writer.writerow(
            [
                row["place"],
                row["group__number"],
                row["seat"],
                row["entrant__code"],
                row["entrant__name"],
                row["entrant__nation"],
                row["entrant__rating"] or "",
                row["points"],
                *(row["figures"].get(k, "") for k in keys),
                row["finished"],
                row["scheduled"],
                int(row["withdrawn"]),
            ]
        )
    yield out.getvalue()


def _safe_sql(expression: str) -> str:
    """:func:`apps.core.csvfiles.safe_cell` of a text ``expression``, in PostgreSQL's SQL: a
    quote in front of a cell that would be a formula, unless it is a plain number."""
    prefixes = ", ".join("'" + p.replace("'", "''") + "'" for p in FORMULA_PREFIXES)
    return (
        f"CASE WHEN left({expression}, 1) IN ({prefixes})"
        f" AND {expression} !~ '^[+-]?[0-9]+([.,][0-9]+)?$'"
        f" THEN '''' || {expression} ELSE {expression} END"
    )


def _cell_sql(expression: str) -> str:
    """A text cell of the file as the csv module writes it (``lineterminator="\\n"``, the
    minimal quoting): between double quotes, its own doubled, if it holds a comma, a double
    quote or a newline; after :func:`_safe_sql`; NULL as nothing."""
    safe = _safe_sql(expression)
    return (
        f"COALESCE(CASE WHEN {safe} ~ '[,\"\\n]'"
        f" THEN '\"' || replace({safe}, '\"', '\"\"') || '\"' ELSE {safe} END, '')"
    )


def ranking_csv_text(stage: Stage) -> str:
    """The whole file of :func:`ranking_csv`, from the stored ranking. On PostgreSQL its
    lines are written by the database, as the csv module would write them (see
    :func:`_cell_sql`), and come as one text: 100,000 rows in a fraction of a second."""
    if connection.vendor != "postgresql":
        return "".join(ranking_csv(stage))
    quote = connection.ops.quote_name
    keys = [k.value for k in chain(stage.tournament)][1:]
    # Places ("3", "3-4") and figures ("-1.5") are numbers this app wrote: never a formula,
    # never quoted. The entrants' fields are checked.
    cells = [
        "r.place::text",
        "g.number::text",
        "r.seat::text",
        *(_cell_sql(f"e.{quote(c)}::text") for c in ("code", "name", "nation")),
        "COALESCE(NULLIF(e.rating, 0)::text, '')",
        "r.points::text",
        *(f"COALESCE(r.figures ->> '{key}', '')" for key in keys),
        "r.finished::text",
        "r.scheduled::text",
        "r.withdrawn::integer::text",
    ]
    line = " || ',' || ".join(cells)
    out = io.StringIO()
    safe_writer(out).writerow(csv_header(stage))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT string_agg({line} || E'\\n', '' ORDER BY r.position)"
            f" FROM {quote(StageRankingRow._meta.db_table)} r"
            f" JOIN {quote(Entrant._meta.db_table)} e ON e.id = r.entrant_id"
            f" JOIN {quote(Group._meta.db_table)} g ON g.id = r.group_id"
            " WHERE r.stage_id = %s",
            [stage.pk],
        )
        (lines,) = cursor.fetchone()
    return out.getvalue() + (lines or "")


def file_version(stage: Stage) -> str:
    """The page versions of the stage and its tournament (one query): what the entrants'
    columns of the ranking file depend on besides the stored ranking."""
    found = dict(
        PageVersion.objects.filter(
            Q(scope=pagecache.TOURNAMENT, object_id=stage.tournament_id)
            | Q(scope=pagecache.STAGE, object_id=stage.pk)
        ).values_list("scope", "version")
    )
    return f"t{found.get(pagecache.TOURNAMENT, 0)}-s{found.get(pagecache.STAGE, 0)}"


def store_ranking_file(stage: Stage, version: str) -> None:
    """Write the stage's ranking file from its stored ranking (inside the rebuild's
    transaction, after :func:`store_ranking`); ``version``: :func:`file_version`, read
    before the stored ranking."""
    raw = ranking_csv_text(stage).encode("utf-8")
    RankingFile.objects.update_or_create(
        stage=stage,
        defaults={
            "version": version,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "size": len(raw),
            "content_gzip": gzip.compress(raw, compresslevel=6, mtime=0),
            "built_at": timezone.now(),
        },
    )


def stored_ranking_file(stage: Stage) -> RankingFile | None:
    """The stage's ranking file if it is the file of what the ranking shows now (its
    content not loaded): None if none was written, or its entrants changed since."""
    found = RankingFile.objects.filter(stage=stage).defer("content_gzip").first()
    if found is None or found.version != file_version(stage):
        return None
    return found
