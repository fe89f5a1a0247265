"""A group's standings: computed from its seats and games by the pure ``tiebreaks`` module
(:func:`compute_group`, two queries, nothing stored), stored one row per entrant
(:func:`store_group_table`), and recomputed when a change marked them
(:func:`recompute_group`, the task's :func:`recompute_if_pending`; see ``freshness.py``).

Also the figures every reader of standings needs: the tournament's tie-break chain
(:func:`chain`), its scoring, and the games per player of a group of the stage.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.db import connection, transaction
from django.utils import timezone

from apps.core import pagecache
from apps.core.bulk import insert_rows
from apps.core.results import Result, SideOutcome
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.scoring import tiebreaks as tb
from apps.silli.systems import pairing_system
from apps.stages.models import Stage

from .fallback import fallback_keys
from .freshness import GROUP_STANDINGS, mark_rankings
from .models import FIGURES, GroupStanding, StandingsMark

# A side's outcome as the tie-break math names it.
OUTCOME = {
    SideOutcome.WIN: tb.Outcome.WIN,
    SideOutcome.DRAW: tb.Outcome.DRAW,
    SideOutcome.LOSS: tb.Outcome.LOSS,
}
# finished result code -> (white outcome, black outcome, played), looked up once per game
OUTCOMES: dict[str, tuple[tb.Outcome, tb.Outcome, bool]] = {
    result.value: (OUTCOME[result.outcomes[0]], OUTCOME[result.outcomes[1]], result.played)
    for result in Result
    if result.finished
}


def scoring(tournament) -> tb.Scoring:
    return tb.Scoring(
        Fraction(str(tournament.points_win)),
        Fraction(str(tournament.points_draw)),
        Fraction(str(tournament.points_loss)),
    )


def stage_games_per_player(stage: Stage, group: Group) -> int:
    """T: 2k for a Silli group, n−1 (or 2(n−1)) for a round robin — the stage's pairing
    system says."""
    return pairing_system(stage.format).games_per_player(group.size, stage)


def drawn_games(stage: Stage, sizes: Iterable[int]) -> int:
    """How many games groups of these sizes hold in ``stage``: n·T/2 a group of n seats, as
    the draw writes them (a closed circle gives each seat T games; a round robin every pair
    once or twice) — counted without reading the games (500,000 rows at 100,000 entrants).
    A Swiss stage's one group gets its games round by round: they are counted."""
    system = pairing_system(stage.format)
    if system.one_group:  # a Swiss: its rounds are paired one at a time, so count them
        return Game.objects.filter(group__stage=stage).count()
    return sum(size * system.games_per_player(size, stage) for size in sizes) // 2


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


def compute_group(group: Group, *, through_round: int | None = None) -> GroupTable:
    """Figures and places of a group from its seats and games (two queries, and in a later
    stage those of the fallback keys); nothing is stored.

    ``through_round``: only the games (and a Swiss group's byes) of rounds up to that one —
    the standings as they were after that round (a Swiss round's page); the figures are
    computed as for the whole group, by the same chain."""
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
    if stage.is_swiss:
        # A Swiss round's pairing-allocated bye scores a win's points without a game
        # (FIDE C.04.1 f); the tie-breaks count it as unplayed (no opponent).
        for entrant in _byes(group, through_round):
            if entrant in records:
                records[entrant].append(tb.Game(None, tb.Outcome.WIN, played=False))
                finished[entrant] += 1
                scheduled[entrant] += 1
    for white, black, result in _games(group, through_round):
        scheduled[white] += 1
        scheduled[black] += 1
        if not result:
            continue
        finished[white] += 1
        finished[black] += 1
        w, b, played = OUTCOMES[result]
        records[white].append(tb.Game(black, w, played, white_side))
        records[black].append(tb.Game(white, b, played, black_side))
    players = [tb.Player(e, records[e]) for e in sorted(records, key=seat_of.__getitem__)]
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


def _games(group: Group, through_round: int | None = None) -> list[tuple[int, int, str]]:
    """(white, black, result) for each game of the group (``through_round``: of the rounds
    up to that one), finished ones in the order they were finished (the order matters to the
    FIDE 2024 rules for unplayed games)."""
    rounds, params = "", [group.pk]
    if through_round is not None:
        rounds, params = " AND round <= %s", [group.pk, through_round]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT white_id, black_id, result"
            f" FROM {connection.ops.quote_name(Game._meta.db_table)}"
            f" WHERE group_id = %s{rounds} ORDER BY updated_at, number",
            params,
        )
        return cursor.fetchall()


def _byes(group: Group, through_round: int | None = None) -> list[int]:
    """The entrants with a Swiss bye in the group (``through_round``: in the rounds up to
    that one), by round."""
    byes = SwissBye.objects.filter(group=group)
    if through_round is not None:
        byes = byes.filter(round__lte=through_round)
    return list(byes.order_by("round").values_list("entrant_id", flat=True))


def _decimal(value) -> str:
    """A figure as text: exact for halves and quarters, else six decimals."""
    if not isinstance(value, Fraction):
        return str(value)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator in (2, 4):
        return str(Decimal(value.numerator) / value.denominator)
    return f"{float(value):.6f}".rstrip("0").rstrip(".")


def table_rows(table: GroupTable) -> list[tuple]:
    """``table``'s rows in order of place, as they are stored (the columns of
    :data:`STANDING_COLUMNS`): points and figures as exact decimal strings."""
    rows = []
    for position, s in enumerate(table.standings, start=1):
        entrant_id = s.figures.id
        assert isinstance(entrant_id, int)  # compute_group ranks the entrants by their id
        rows.append(
            (
                entrant_id,
                table.seat_of[entrant_id],
                position,
                s.label,
                _decimal(s.figures.points),
                table.finished[entrant_id],
                table.scheduled[entrant_id],
                entrant_id in table.withdrawn,
                {name: _decimal(getattr(s.figures, name)) for name in FIGURES},
            )
        )
    return rows


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
    """Store ``table``'s rows as the group's standings (and when: ``Group.standings_at``);
    returns the number of rows. Call it inside the transaction that holds the group's
    recompute lock; :func:`recompute_group` settles the mark after it.

    On PostgreSQL two statements, each with one JSON parameter: the first deletes the stored
    rows whose entrant is not at the same position any more; the second updates the remaining
    ones in place (they keep group, entrant and position: no key to check, and no index to
    change while their page has room), inserts the others and updates the group. Elsewhere,
    delete and insert.
    """
    group_id = table.group.pk
    # The group's cached pages are retired once the new standings commit.
    pagecache.bump([(pagecache.GROUP, group_id)])
    rows = table_rows(table)
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
        Group.objects.filter(pk=group_id).update(standings_at=now)
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
            " SET standings_at = %s WHERE id = %s),"
            f" updated AS (UPDATE {standings} s SET {changes}"
            " FROM r WHERE s.group_id = %s AND s.entrant_id = r.entrant_id)"
            f" INSERT INTO {standings} (group_id, {names}) SELECT %s, {values} FROM r"
            f" WHERE NOT EXISTS (SELECT FROM {standings} s"
            " WHERE s.group_id = %s AND s.entrant_id = r.entrant_id)",
            [data, now, group_id, group_id, group_id, group_id],
        )
    return len(rows)


def recompute_group(group_id: int) -> int:
    """Recompute and store a group's standings; returns the number of rows.

    Runs under the group's recompute lock, so two recomputes of one group (two workers, or a
    duplicate) take turns instead of mixing their rows. The mark's count is read under the
    lock, before the games: every change marked by then is in what is read, and the mark is
    cleared only if no change was marked meanwhile (else the next recompute is queued).

    Last, in the same transaction, the stage's stored ranking is marked as missing this
    change (for a closed stage also the later stages' rankings: their fallback keys): one
    rebuild is queued on commit for many group recomputes (``freshness.mark_rankings``).
    """
    rows = _recompute(group_id, only_if_pending=False)
    assert rows is not None
    return rows


def recompute_if_pending(group_id: int) -> int | None:
    """The recompute task: recompute the group unless its mark was cleared meanwhile (by an
    earlier copy of the task: a re-queued or redelivered one then costs one query, read under
    the group's lock, so a copy that waited for a running recompute does not repeat it)."""
    return _recompute(group_id, only_if_pending=True)


def _recompute(group_id: int, *, only_if_pending: bool) -> int | None:
    started = timezone.now()
    with transaction.atomic():
        GROUP_STANDINGS.lock(group_id)
        mark = (
            StandingsMark.objects.filter(group_id=group_id)
            .values_list("changes", "pending_since")
            .first()
        )
        if only_if_pending and (mark is None or mark[1] is None):
            return None
        seen = None if mark is None else mark[0]
        group = Group.objects.select_related("stage__tournament").get(pk=group_id)
        rows = store_group_table(compute_group(group))
        GROUP_STANDINGS.settle(group_id, seen, started)
        # The ranking's mark row is locked from here to the commit only: recomputes of the
        # stage's other groups wait for each other that long, no longer.
        mark_rankings(group.stage)
        return rows
