"""Standings of groups and stages, computed by the pure ``tiebreaks`` module.

A result change marks its group and queues ONE recompute task for it (coalesced: while a
recompute is queued, further changes queue nothing more); the task clears the mark first, so
a change that lands during the recompute queues the next one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from operator import itemgetter

from django.db import connection, transaction
from django.utils import timezone

from apps.core.bulk import insert_rows
from apps.entrants.models import StageEntry
from apps.groups.models import Group, Seat
from apps.results.models import Game
from apps.stages.models import Stage

from . import tiebreaks as tb
from .fallback import fallback_keys
from .models import FIGURES, GroupStanding

COALESCE_SECONDS = 2
W, D, L = tb.Outcome.WIN, tb.Outcome.DRAW, tb.Outcome.LOSS
# result -> (white outcome, black outcome, played)
OUTCOMES = {
    "1-0": (W, L, True),
    "0-1": (L, W, True),
    "1/2-1/2": (D, D, True),
    "+-": (W, L, False),
    "-+": (L, W, False),
    "--": (L, L, False),
}


def schedule_recompute(group_id: int) -> bool:
    """Queue the group's recompute unless one is queued already. True if this call queued it."""
    from .tasks import recompute_group_standings

    if not Group.objects.filter(pk=group_id, standings_pending=False).update(
        standings_pending=True
    ):
        return False
    recompute_group_standings.apply_async((group_id,), countdown=COALESCE_SECONDS)
    return True


def scoring(tournament) -> tb.Scoring:
    return tb.Scoring(
        Fraction(str(tournament.points_win)),
        Fraction(str(tournament.points_draw)),
        Fraction(str(tournament.points_loss)),
    )


def stage_games_per_player(stage: Stage, group: Group) -> int:
    """T: 2k for a Silli group, n−1 (or 2(n−1)) for a round robin."""
    if stage.format == Stage.Format.ROUND_ROBIN:
        return (group.size - 1) * (2 if stage.double_round_robin else 1)
    return stage.games_per_player


def chain(tournament) -> tuple[tb.Key, ...]:
    return tb.SYSTEMS[tournament.tiebreak]


@dataclass(frozen=True)
class GroupTable:
    """Standings of one group as computed now (not stored)."""

    group: Group
    standings: list[tb.Standing]
    seat_of: dict[int, int]  # entrant id -> seat
    finished: dict[int, int]
    scheduled: dict[int, int]
    withdrawn: set[int]


def compute_group(group: Group) -> GroupTable:
    """Figures and places of a group from its seats and games (two queries, and in a later
    stage those of the fallback keys); nothing is stored."""
    stage = group.stage
    tournament = stage.tournament
    seat_of: dict[int, int] = {}
    withdrawn: set[int] = set()
    for entrant_id, number, gone in _seats(group):
        seat_of[entrant_id] = number
        if gone:
            withdrawn.add(entrant_id)
    records: dict[int, list[tb.Game]] = {e: [] for e in seat_of}
    finished: dict[int, int] = defaultdict(int)
    scheduled: dict[int, int] = defaultdict(int)
    white_side, black_side = tb.Colour.WHITE, tb.Colour.BLACK
    for white, black, result in _games(group):
        scheduled[white] += 1
        scheduled[black] += 1
        if not result:
            continue
        finished[white] += 1
        finished[black] += 1
        w, b, played = OUTCOMES[result]
        records[white].append(tb.Game(black, w, played, white_side))
        records[black].append(tb.Game(white, b, played, black_side))
    players = [tb.Player(e, records[e]) for e in sorted(records, key=seat_of.get)]
    figures = tb.compute_figures(
        players, stage_games_per_player(stage, group), scoring=scoring(tournament)
    )
    # A later stage's ties fall back to the earlier stages' results (Silli's FINAL rule).
    fallback = fallback_keys(stage, chain(tournament), seat_of) if stage.order > 1 else None
    return GroupTable(
        group,
        tb.rank(figures, chain(tournament), fallback),
        seat_of,
        finished,
        scheduled,
        withdrawn,
    )


# The two reads of a recompute are plain SQL: it runs after every result, and the ORM took
# longer to build these queries than the database to answer them.


def _seats(group: Group) -> list[tuple[int, int, bool]]:
    """(entrant, seat, withdrawn from the stage) for each seat of the group, by seat."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.entrant_id, s.number, e.withdrawn_at IS NOT NULL"
            f" FROM {quote(Seat._meta.db_table)} s LEFT JOIN {quote(StageEntry._meta.db_table)} e"
            " ON e.stage_id = s.stage_id AND e.entrant_id = s.entrant_id"
            " WHERE s.group_id = %s ORDER BY s.number",
            [group.pk],
        )
        return [(entrant, seat, bool(gone)) for entrant, seat, gone in cursor.fetchall()]


def _games(group: Group) -> list[tuple[int, int, str]]:
    """(white, black, result) for each game of the group, finished ones in the order they
    were finished (the order matters to the FIDE 2024 rules for unplayed games)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT white_id, black_id, result"
            f" FROM {connection.ops.quote_name(Game._meta.db_table)}"
            " WHERE group_id = %s ORDER BY updated_at, number",
            [group.pk],
        )
        return cursor.fetchall()


def _decimal(value) -> str:
    """A figure as text: exact for halves and quarters, else six decimals."""
    if not isinstance(value, Fraction):
        return str(value)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator in (2, 4):
        return str(Decimal(value.numerator) / value.denominator)
    return f"{float(value):.6f}".rstrip("0").rstrip(".")


def recompute_group(group_id: int) -> int:
    """Recompute and store a group's standings; returns the number of rows.

    Runs under the group's row lock, so two recomputes of one group (two workers, or a
    change arriving meanwhile) take turns instead of mixing their rows; the queued mark is
    cleared in the same transaction, so a change committed during the recompute queues the
    next one.
    """
    with transaction.atomic():
        group = (
            Group.objects.select_for_update(of=("self",))
            .select_related("stage__tournament")
            .get(pk=group_id)
        )
        return store_group_table(compute_group(group))


# The stored row's columns after group_id, with their PostgreSQL types.
STANDING_COLUMNS = {
    "entrant_id": "bigint",
    "seat": "integer",
    "position": "integer",
    "place": "text",
    "points": "numeric",
    "finished": "integer",
    "scheduled": "integer",
    "withdrawn": "boolean",
    "figures": "jsonb",
}


def store_group_table(table: GroupTable) -> int:
    """Store ``table``'s rows as the group's standings and clear its queued mark; returns the
    number of rows. Call it inside the transaction that holds the group's row lock (other
    transactions see the mark cleared only at the commit, and a change committed meanwhile
    waits for the lock before it can queue the next recompute).

    On PostgreSQL two statements, each with one JSON parameter: the first deletes the stored
    rows whose entrant is not at the same position any more; the second updates the remaining
    ones in place (they keep group, entrant and position: no key to check, and no index to
    change while their page has room), inserts the others and updates the group. Elsewhere,
    delete and insert.
    """
    group_id = table.group.pk
    rows = [
        (
            s.figures.id,
            table.seat_of[s.figures.id],
            position,
            s.label,
            _decimal(s.figures.points),
            table.finished[s.figures.id],
            table.scheduled[s.figures.id],
            s.figures.id in table.withdrawn,
            {name: _decimal(getattr(s.figures, name)) for name in FIGURES},
        )
        for position, s in enumerate(table.standings, start=1)
    ]
    now = timezone.now()
    quote = connection.ops.quote_name
    standings = quote(GroupStanding._meta.db_table)
    if connection.vendor != "postgresql":
        GroupStanding.objects.filter(group_id=group_id).delete()
        insert_rows(
            GroupStanding,
            ("group_id", *STANDING_COLUMNS),
            ((group_id, *r[:4], Decimal(r[4]), *r[5:]) for r in rows),
        )
        Group.objects.filter(pk=group_id).update(standings_pending=False, standings_at=now)
        return len(rows)
    data = json.dumps([dict(zip(STANDING_COLUMNS, r, strict=True)) for r in rows])
    types = ", ".join(f"{quote(c)} {t}" for c, t in STANDING_COLUMNS.items())
    names = ", ".join(quote(c) for c in STANDING_COLUMNS)
    values = ", ".join(f"r.{quote(c)}" for c in STANDING_COLUMNS)
    kept = ("entrant_id", "position")
    changes = ", ".join(f"{quote(c)} = r.{quote(c)}" for c in STANDING_COLUMNS if c not in kept)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {standings} WHERE group_id = %s AND (entrant_id, position)"
            " NOT IN (SELECT key::bigint, value::integer FROM jsonb_each_text(%s))",
            [group_id, json.dumps({r[0]: r[2] for r in rows})],
        )
        # One snapshot for the whole statement: the rows left by the delete are updated,
        # and the new rows are those whose entrant has no row left.
        cursor.execute(
            f"WITH r AS (SELECT * FROM jsonb_to_recordset(%s) AS r({types})),"
            f" marked AS (UPDATE {quote(Group._meta.db_table)}"
            " SET standings_pending = false, standings_at = %s WHERE id = %s),"
            f" updated AS (UPDATE {standings} s SET {changes}"
            " FROM r WHERE s.group_id = %s AND s.entrant_id = r.entrant_id)"
            f" INSERT INTO {standings} (group_id, {names}) SELECT %s, {values} FROM r"
            f" WHERE NOT EXISTS (SELECT FROM {standings} s"
            " WHERE s.group_id = %s AND s.entrant_id = r.entrant_id)",
            [data, now, group_id, group_id, group_id, group_id],
        )
    return len(rows)


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


def stage_ranking(stage: Stage) -> list[dict]:
    """The unified ranking of a stage: every group's stored rows ordered by the chain;
    entrants equal on every key share a place (``place`` is e.g. ``"3"`` or ``"3-4"``).

    Rows are plain dicts (one query, no model instances) so 100,000 entrants stay cheap.
    """
    keys = [k.value for k in chain(stage.tournament)]
    rows = [
        dict(zip(RANKING_FIELDS, values, strict=True))
        for values in GroupStanding.objects.filter(group__stage=stage)
        .order_by("group__number", "position")
        .values_list(*RANKING_FIELDS)
    ]
    fallback = fallback_keys(stage, chain(stage.tournament)) if stage.order > 1 else {}
    for row in rows:
        row["key"] = tuple(Decimal(row["figures"][k]) for k in keys) + fallback.get(
            row["entrant_id"], ()
        )
    rows.sort(key=itemgetter("key"), reverse=True)
    start = 0
    while start < len(rows):
        end = start
        while end + 1 < len(rows) and rows[end + 1]["key"] == rows[start]["key"]:
            end += 1
        label = str(start + 1) if start == end else f"{start + 1}-{end + 1}"
        for i in range(start, end + 1):
            rows[i]["place"] = label
        start = end + 1
    return rows
