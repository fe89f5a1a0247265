"""A group's standings: computed from its seats and games by the pure ``tiebreaks`` module
(:func:`compute_group`, one query, nothing stored), stored one row per entrant
(:func:`store_group_table`), and recomputed when a change marked them: one group
(:func:`recompute_group`, the task's :func:`recompute_if_pending`) or every group of a stage
in one pass (:func:`recompute_stage`, the stage task's; see ``freshness.py``).

Also the figures every reader of standings needs: the tournament's tie-break chain
(:func:`chain`), its scoring, and the games per player of a group of the stage.

**Round trips.** A recompute runs after every result, so on PostgreSQL it sends few
messages, each a pipeline of prepared statements (planned once per connection): the locks
and every read in one (the mark, the group with its stage and tournament, the seats, games
and byes as arrays, the stored rows' count and fingerprint), the store, the mark's
settling, the stage ranking's mark, the pages' version and the commit in another. Rows of
the fingerprint computed are the rows stored: then nothing is written, and the pages and
the ranking keep what they have. The stage's pass reads every group's arrays in one
statement and writes every row with one COPY and one message. Elsewhere (SQLite) the same
steps run one statement at a time.

**Locks** (see ``apps/core/locking.py``): a group's recompute holds its stage's standings lock
shared and its group's recompute lock (PostgreSQL advisory locks, not rows: changes go on
meanwhile), the stage's pass the stage's standings lock alone, exclusive. Each takes them in
a statement of its own, before the statement that reads the marks, so what it reads was
committed after any recompute it waited for.
"""

from __future__ import annotations

import array
import functools
import hashlib
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cached_property
from math import gcd
from typing import Any, cast

import psycopg
from django.db import connection, models, transaction
from django.utils import timezone

from apps.core import pagecache
from apps.core.bulk import column_of, insert_rows
from apps.core.results import Result, SideOutcome
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.scoring import tiebreaks as tb
from apps.silli.systems import pairing_system
from apps.stages.models import Stage, Tournament

from .fallback import fallback_keys
from .freshness import GROUP_STANDINGS, STAGE_RANKING, STAGE_STANDINGS_LOCK, mark_rankings
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
# Results as small integers, as a recompute reads them: 0 in progress, 1… a finished code,
# each with (white outcome, black outcome, played) as the compact records' codes.
RESULT_NUMBERS: dict[str, int] = {"": 0} | {code: n for n, code in enumerate(OUTCOMES, start=1)}
_BY_NUMBER: list[tuple[int, int, bool]] = [(-1, -1, False)] + [  # 0: in progress, unused
    (tb.OUTCOME_CODE[white], tb.OUTCOME_CODE[black], played)
    for white, black, played in OUTCOMES.values()
]


# The same by number, finished results only (a lookup that refuses any other number).
_OUTCOME_OF_NUMBER: dict[int, tuple[int, int, bool]] = dict(enumerate(_BY_NUMBER))
del _OUTCOME_OF_NUMBER[0]


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


# ---------------------------------------------------------------------------
# Computing a group's table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupRead:
    """What a group's standings are computed from, as read: its seats ``(entrant, seat,
    withdrawn from the stage)`` by seat, its games ``(white, black, result)`` with the result
    as its :data:`RESULT_NUMBERS` number, finished ones in the order they were finished (the
    order matters to the FIDE 2024 rules for unplayed games), and in a Swiss the entrants of
    its byes by round."""

    seats: Sequence[Sequence[int]]
    games: Sequence[Sequence[int]]
    byes: Sequence[int] = ()


@dataclass(frozen=True)
class GroupTable:
    """Standings of one group as computed now (not stored).

    ``figures`` are the tie-break figures in integer columns (by seat), ``ranked`` the
    order, ``(index into figures, place, last)`` best first; ``standings`` the same as
    :class:`~apps.scoring.tiebreaks.Standing` objects with their Fractions, made when first
    read (storing the table does not need them)."""

    group: Group
    figures: tb.FigureTable
    ranked: list[tuple[int, int, int]]
    seat_of: dict[int, int]  # entrant id -> seat
    finished: dict[int, int]
    scheduled: dict[int, int]
    withdrawn: set[int] = field(default_factory=set)

    @cached_property
    def standings(self) -> list[tb.Standing]:
        made = self.figures.figures()
        return [tb.Standing(place, last, made[i]) for i, place, last in self.ranked]


def compute_group(group: Group, *, through_round: int | None = None) -> GroupTable:
    """Figures and places of a group from its seats and games (one query, and in a later
    stage those of the fallback keys); nothing is stored. A recompute hands over what it
    read with its lock instead (``_READ``).

    ``through_round``: only the games (and a Swiss group's byes) of rounds up to that one —
    the standings as they were after that round (a Swiss round's page); the figures are
    computed as for the whole group, by the same chain."""
    read: GroupRead | None = group.__dict__.pop(_READ, None)
    if through_round is not None:
        read = _read_portable(group.pk, through_round)
    elif read is None:
        read = _read_inputs(group.pk)
    stage = group.stage
    fallback = None
    if stage.order > 1:
        fallback = fallback_keys(stage, chain(stage.tournament), [e for e, _, _ in read.seats])
    return table_of(group, read, fallback)


# The attribute of a Group instance by which a recompute hands what it read to compute_group.
_READ = "_standings_read"


def table_of(
    group: Group,
    read: GroupRead,
    fallback: dict[tb.PlayerId, tuple[Decimal, ...]] | None = None,
) -> GroupTable:
    """The table of ``group`` (with its stage and tournament loaded) from what was read;
    ``fallback``: the earlier stages' keys (a later stage's)."""
    stage = group.stage
    tournament = stage.tournament
    seat_of: dict[int, int] = {}
    withdrawn: set[int] = set()
    index: dict[int, int] = {}
    for entrant_id, number, gone in read.seats:
        seat_of[entrant_id] = number
        index[entrant_id] = len(index)
        if gone:
            withdrawn.add(entrant_id)
    size = len(index)
    records: list[list[tb.Record]] = [[] for _ in range(size)]
    open_games = [0] * size  # games in progress
    # A Swiss round's pairing-allocated bye scores a win's points without a game
    # (FIDE C.04.1 f); the tie-breaks count it as unplayed (no opponent).
    bye: tb.Record = (-1, tb.WIN, False, False)
    for entrant in read.byes:
        i = index.get(entrant)
        if i is not None:
            records[i].append(bye)
    outcomes = _OUTCOME_OF_NUMBER
    for white, black, result in read.games:
        w, b = index[white], index[black]
        if not result:
            open_games[w] += 1
            open_games[b] += 1
            continue
        found = outcomes.get(result)
        if found is None:
            raise ValueError(f"a game of {white} and {black} has an unknown result")
        white_outcome, black_outcome, played = found
        records[w].append((b, white_outcome, played, False))
        records[b].append((w, black_outcome, played, True))
    # Every record is a finished game or a bye, each one scheduled.
    finished = [len(own) for own in records]
    scheduled = [done + left for done, left in zip(finished, open_games, strict=True)]
    ids = list(index)
    figures = tb.figure_table(
        records, stage_games_per_player(stage, group), ids=ids, scoring=scoring(tournament)
    )
    return GroupTable(
        group,
        figures,
        tb.rank_table(figures, chain(tournament), fallback),
        seat_of,
        defaultdict(int, zip(ids, finished, strict=True)),
        defaultdict(int, zip(ids, scheduled, strict=True)),
        withdrawn,
    )


# ---------------------------------------------------------------------------
# Reading (plain SQL: a recompute runs after every result, and the ORM took longer to build
# these queries than the database to answer them)
# ---------------------------------------------------------------------------


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _inputs(withdrawn: bool = True) -> tuple[str, str]:
    """PostgreSQL: the select list and the joins that add a group ``g``'s seats, games and
    byes to its row, each as one string of 8-byte integers (``int8send``, big-endian), which
    this process turns into integers at C speed (:func:`_read_of`): ``entrant, seat,
    withdrawn (0/1)`` by seat, ``white, black, result number`` in the order
    :class:`GroupRead` gives them (one sort: a group's games cost about what reading them as
    rows costs), the byes' entrants by round.

    ``withdrawn=False`` (the stage's pass): ``entrant, seat`` by seat only, without a lookup
    per seat; the caller reads the stage's few withdrawn entrants once instead."""
    seat, entry = _q(Seat._meta.db_table), _q(StageEntry._meta.db_table)
    game, bye = _q(Game._meta.db_table), _q(SwissBye._meta.db_table)
    numbers = " ".join(f"WHEN '{code}' THEN {n}" for code, n in RESULT_NUMBERS.items())
    select = "st.seats, gm.games, b.entrants"
    # withdrawn: a lookup in the entries' key per seat, whatever the planner reckons
    gone = (
        " || int8send((EXISTS (SELECT FROM"
        f" {entry} e WHERE e.stage_id = s.stage_id AND e.entrant_id = s.entrant_id"
        " AND e.withdrawn_at IS NOT NULL))::integer::bigint)"
    )
    joins = (
        " CROSS JOIN LATERAL (SELECT string_agg(int8send(s.entrant_id)"
        f" || int8send(s.number::bigint){gone if withdrawn else ''}, ''::bytea ORDER BY s.number)"
        f" AS seats FROM {seat} s WHERE s.group_id = g.id) st"
        " CROSS JOIN LATERAL (SELECT string_agg(int8send(x.white_id)"
        f" || int8send(x.black_id) || int8send(CASE x.result {numbers} ELSE -1 END::bigint),"
        " ''::bytea ORDER BY x.updated_at, x.number) AS games"
        f" FROM {game} x WHERE x.group_id = g.id) gm"
        " CROSS JOIN LATERAL (SELECT string_agg(int8send(y.entrant_id), ''::bytea"
        f" ORDER BY y.round) AS entrants FROM {bye} y WHERE y.group_id = g.id) b"
    )
    return select, joins


def _integers(data: bytes | memoryview | None) -> list[int]:
    """The 8-byte big-endian integers of ``data`` (None: none)."""
    if not data:
        return []
    values = array.array("q", bytes(data))
    if sys.byteorder == "little":
        values.byteswap()
    return values.tolist()


def _read_of(row: Sequence[Any], withdrawn: set[int] | None = None) -> GroupRead:
    """A :class:`GroupRead` from the columns of :func:`_inputs` (``withdrawn``: the stage's
    withdrawn entrants, for seats read without their lookup)."""
    seats, games, byes = (_integers(column) for column in row)
    if withdrawn is None:
        by_seat = list(zip(seats[0::3], seats[1::3], seats[2::3], strict=True))
    else:
        entrants = seats[0::2]
        gone = [int(e in withdrawn) for e in entrants] if withdrawn else [0] * len(entrants)
        by_seat = list(zip(entrants, seats[1::2], gone, strict=True))
    return GroupRead(by_seat, list(zip(games[0::3], games[1::3], games[2::3], strict=True)), byes)


def _read_inputs(group_id: int) -> GroupRead:
    """A group's seats, games and byes: one query on PostgreSQL, three elsewhere."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            select, joins = _inputs()
            cursor.execute(
                f"SELECT {select} FROM {_q(Group._meta.db_table)} g{joins} WHERE g.id = %s",
                [group_id],
            )
            row = cursor.fetchone()
            return _read_of(row) if row else GroupRead([], [])
    return _read_portable(group_id)


def _read_portable(group_id: int, through_round: int | None = None) -> GroupRead:
    """:func:`_read_inputs` in three plain queries, any database; ``through_round``: only the
    games and byes of the rounds up to that one."""
    rounds, params = "", [group_id]
    if through_round is not None:
        rounds, params = " AND round <= %s", [group_id, through_round]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.entrant_id, s.number, e.withdrawn_at IS NOT NULL"
            f" FROM {_q(Seat._meta.db_table)} s LEFT JOIN {_q(StageEntry._meta.db_table)} e"
            " ON e.stage_id = s.stage_id AND e.entrant_id = s.entrant_id"
            " WHERE s.group_id = %s ORDER BY s.number",
            [group_id],
        )
        seats = [(entrant, seat, int(bool(gone))) for entrant, seat, gone in cursor.fetchall()]
        cursor.execute(
            f"SELECT white_id, black_id, result FROM {_q(Game._meta.db_table)}"
            f" WHERE group_id = %s{rounds} ORDER BY updated_at, number",
            params,
        )
        games = [(w, b, RESULT_NUMBERS.get(r, -1)) for w, b, r in cursor.fetchall()]
    byes = SwissBye.objects.filter(group_id=group_id)
    if through_round is not None:
        byes = byes.filter(round__lte=through_round)
    return GroupRead(
        seats, games, list(byes.order_by("round").values_list("entrant_id", flat=True))
    )


def _fields(
    model: type[models.Model], alias: str, only: Iterable[str] | None = None
) -> tuple[list[str], list[str]]:
    """A model's concrete fields (``only``: those of these attnames): their attnames, and
    their columns in a select list."""
    fields = list(model._meta.concrete_fields)
    if only is not None:
        wanted = set(only)
        fields = [f for f in fields if f.attname in wanted]
    return [f.attname for f in fields], [f"{alias}.{_q(column_of(f))}" for f in fields]


def _instance(model: type[models.Model], names: list[str], values: Sequence[Any]) -> Any:
    return model.from_db(connection.alias, names, values)


# ---------------------------------------------------------------------------
# Storing
# ---------------------------------------------------------------------------


def _decimal(value) -> str:
    """A figure as text: exact for halves and quarters, else six decimals."""
    if not isinstance(value, Fraction):
        return str(value)
    return _exact_text(value.numerator, value.denominator)


def _exact_text(numerator: int, denominator: int) -> str:
    """:func:`_decimal` of ``numerator / denominator`` (not necessarily reduced)."""
    if denominator != 1:
        common = gcd(numerator, denominator)
        numerator, denominator = numerator // common, denominator // common
    if denominator == 1:
        return str(numerator)
    if denominator in (2, 4):
        return str(Decimal(numerator) / denominator)
    return f"{numerator / denominator:.6f}".rstrip("0").rstrip(".")


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


def _figure_texts(figures: tb.FigureTable) -> list[list[str]]:
    """Every figure of :data:`FIGURES` as text, by figure, by player (see :func:`_decimal`):
    each text made once per value."""
    texts: list[list[str]] = []
    for name in FIGURES:
        numerators: list[int] = getattr(figures, name)
        denominators = figures.denominators(name)
        if denominators == 1:
            texts.append(list(map(str, numerators)))
        elif isinstance(denominators, int):
            common = denominators
            made = {n: _exact_text(n, common) for n in set(numerators)}
            texts.append(list(map(made.__getitem__, numerators)))
        else:
            exact = list(zip(numerators, denominators, strict=True))
            made_exact = {pair: _exact_text(*pair) for pair in set(exact)}
            texts.append(list(map(made_exact.__getitem__, exact)))
    return texts


def table_rows(table: GroupTable) -> Iterator[tuple]:
    """The stored rows of ``table``, by position: the values of :data:`STANDING_COLUMNS`,
    points as text and the figures as a tuple of texts in :data:`FIGURES` order (written
    as JSON by ``_FIGURES_JSON``)."""
    figures = table.figures
    texts = _figure_texts(figures)
    by_player = list(zip(*texts, strict=True)) if texts else []
    points = FIGURES.index("points")
    seat_of, finished, scheduled, withdrawn = (
        table.seat_of,
        table.finished,
        table.scheduled,
        table.withdrawn,
    )
    for position, (i, place, last) in enumerate(table.ranked, start=1):
        entrant_id = figures.ids[i]
        assert isinstance(entrant_id, int)  # compute_group ranks the entrants by their id
        values = by_player[i]
        yield (
            entrant_id,
            seat_of[entrant_id],
            position,
            str(place) if place == last else f"{place}-{last}",
            values[points],
            finished[entrant_id],
            scheduled[entrant_id],
            entrant_id in withdrawn,
            values,
        )


# ---------------------------------------------------------------------------
# A group's rows as text: what the stage's pass copies, and their digest, which tells
# whether the stored rows are the same (then they are not written again)
# ---------------------------------------------------------------------------

# The figures' keys in jsonb's own order (by length, then by bytes): a row's figures written
# in it are the text PostgreSQL gives back for the stored value (``figures::text``).
_JSONB_KEYS = sorted(FIGURES, key=lambda name: (len(name), name.encode()))
_JSONB_INDEX = [FIGURES.index(name) for name in _JSONB_KEYS]
# A stored row as text, in COPY's text format and as PostgreSQL writes its columns back
# (:func:`_stored_digest_sql`): the columns of :data:`STANDING_COLUMNS`, points with the column's
# two decimals, withdrawn as t or f. No value holds a tab, a newline or a backslash
# (numbers, places like "3-4", the figures' JSON of numbers).
_ROW_TEXT = (
    "%d\t%d\t%d\t%s\t%s\t%d\t%d\t%s\t{"
    + ", ".join(f'"{name}": "%s"' for name in _JSONB_KEYS)
    + "}\n"
)
_TWO_PLACES = Decimal("0.01")


@functools.cache
def _points_text(text: str) -> str:
    """Points as the stored column gives them back (numeric, two decimals: "5.50")."""
    return str(Decimal(text).quantize(_TWO_PLACES, rounding=ROUND_HALF_UP))


def rows_text(table: GroupTable) -> str:
    """The stored rows of ``table`` (:func:`table_rows`) as lines of :data:`_ROW_TEXT`, by
    position: what the stage's pass copies, and whose digest (:func:`rows_digest`) is the
    digest of the stored rows when they are the same (:func:`_stored_digest_sql`)."""
    figures = table.figures
    texts = _figure_texts(figures)
    points_column = FIGURES.index("points")
    points = [_points_text(t) for t in texts[points_column]]
    by_player = list(zip(*(texts[k] for k in _JSONB_INDEX), strict=True)) if texts else []
    seat_of, finished, scheduled, withdrawn = (
        table.seat_of,
        table.finished,
        table.scheduled,
        table.withdrawn,
    )
    ids = cast(Sequence[int], figures.ids)  # compute_group ranks the entrants by their id
    row = _ROW_TEXT
    lines = []
    for position, (i, place, last) in enumerate(table.ranked, start=1):
        entrant_id = ids[i]
        lines.append(
            row
            % (
                entrant_id,
                seat_of[entrant_id],
                position,
                place if place == last else f"{place}-{last}",
                points[i],
                finished[entrant_id],
                scheduled[entrant_id],
                "t" if entrant_id in withdrawn else "f",
                *by_player[i],
            )
        )
    return "".join(lines)


def rows_digest(text: str) -> str | None:
    """The digest of a group's :func:`rows_text` (None: no rows), as
    :func:`_stored_digest_sql` computes it from the stored rows."""
    if not text:
        return None
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


@functools.cache
def _stored_digest_sql(group: str) -> str:
    """PostgreSQL: the digest of the stored rows of the group whose id is ``group`` (an SQL
    expression), each written back as :func:`rows_text` writes it (NULL: none)."""
    standings = _q(GroupStanding._meta.db_table)
    columns = " || E'\\t' || ".join(
        [
            *(f"s.{_q(c)}" for c in ("entrant_id", "seat", "position", "place", "points")),
            *(f"s.{_q(c)}" for c in ("finished", "scheduled")),
            f"CASE WHEN s.{_q('withdrawn')} THEN 't' ELSE 'f' END",
            f"s.{_q('figures')}::text",
        ]
    )
    return (
        f"(SELECT md5(string_agg({columns} || E'\\n', '' ORDER BY s.{_q('position')}))"
        f" FROM {standings} s WHERE s.group_id = {group})"
    )


# A row's figures as JSON, from their texts (digits, a sign and a point: nothing to escape).
_FIGURES_JSON = "{" + ", ".join(f'"{name}": "%s"' for name in FIGURES) + "}"
# A stored row as a JSON object (``jsonb_to_recordset``), from table_rows' values.
_ROW_JSON = (
    '{"entrant_id": %d, "seat": %d, "position": %d, "place": "%s", "points": "%s",'
    ' "finished": %d, "scheduled": %d, "withdrawn": %s, "figures": %s}'
)


def _rows_json(rows: Sequence[tuple]) -> str:
    return (
        "["
        + ", ".join(
            _ROW_JSON % (*r[:7], "true" if r[7] else "false", _FIGURES_JSON % r[8]) for r in rows
        )
        + "]"
    )


# How a row is written (:data:`_ROW_JSON`, :data:`_FIGURES_JSON`, :func:`_decimal`'s texts,
# :func:`table_rows`), version by version. The fingerprint (:func:`_fingerprint`) is taken of
# what the rows are made from and of this number: a change to how a row is written must move
# it on, so that every group's rows are written again by its next recompute.
# tests/standings/test_rows_text.py pins the JSON of a fixed table to this number.
ROWS_TEXT_VERSION = 1


def _fingerprint(table: GroupTable) -> int:
    """``GroupStanding.fingerprint`` of ``table``'s rows: the first 8 bytes, as a signed
    integer, of the BLAKE2b digest of :data:`ROWS_TEXT_VERSION` and of what the rows' text is
    made from (the order with its places; by player their id, seat, games finished and
    scheduled, withdrawal; every figure's numerators and denominators), each column with its
    length. The same rows, the same fingerprint, without writing them as text (a quarter of a
    recompute whose rows are as stored)."""
    figures = table.figures
    ids = cast(Sequence[int], figures.ids)  # compute_group ranks the entrants by their id
    columns: list[Sequence[Any]] = [
        (ROWS_TEXT_VERSION,),
        [number for ranked in table.ranked for number in ranked],
        ids,
        [table.seat_of[e] for e in ids],
        [table.finished[e] for e in ids],
        [table.scheduled[e] for e in ids],
        [int(e in table.withdrawn) for e in ids],
    ]
    for name in FIGURES:
        denominators = figures.denominators(name)
        columns.append(getattr(figures, name))
        columns.append((denominators,) if isinstance(denominators, int) else denominators)
    digest = hashlib.blake2b(digest_size=8)
    for column in columns:
        try:
            packed = b"q" + array.array("q", column).tobytes()
        except OverflowError:  # a figure past 64 bits
            packed = b"r" + repr(list(column)).encode()
        digest.update(len(packed).to_bytes(8, "big"))
        digest.update(packed)
    return int.from_bytes(digest.digest(), "big", signed=True)


def store_group_table(table: GroupTable) -> int:
    """Store ``table``'s rows as the group's standings (and when: ``Group.standings_at``);
    returns the number of rows. Call it inside the transaction that holds the group's
    recompute lock; :func:`recompute_group` settles the mark after it.

    On PostgreSQL one message of two statements (:func:`_store_statements`); elsewhere,
    delete and insert.
    """
    group_id = table.group.pk
    # The group's cached pages are retired once the new standings commit.
    pagecache.bump([(pagecache.GROUP, group_id)])
    now = timezone.now()
    if connection.vendor != "postgresql":
        rows = list(table_rows(table))
        GroupStanding.objects.filter(group_id=group_id).delete()
        insert_rows(
            GroupStanding,
            ("group_id", *STANDING_COLUMNS),
            (
                (group_id, *r[:4], Decimal(r[4]), *r[5:8], dict(zip(FIGURES, r[8], strict=True)))
                for r in rows
            ),
        )
        Group.objects.filter(pk=group_id).update(standings_at=now)
        return len(rows)
    _send(_store_statements(table, None, now)[0])
    return len(table.ranked)


def _store_statements(
    table: GroupTable, stored: tuple[int, int | None] | None, now: datetime
) -> tuple[list[Statement], bool]:
    """PostgreSQL: the statements that store ``table``'s rows, and whether they write any.
    ``stored``: how many rows the group has, and their fingerprint if every one has the same
    (those a recompute wrote together). Rows of the table's fingerprint are its rows: only
    the group says when its standings were computed. Else the stored rows are deleted and
    these inserted (sent as JSON), each with the fingerprint."""
    group_id = table.group.pk
    fingerprint = _fingerprint(table)
    if stored is not None and stored[1] == fingerprint:
        return [(_computed_sql(), [now, group_id])], False
    text = _rows_json(list(table_rows(table)))
    delete, insert = _store_sql()
    return [
        (delete, [group_id]),
        (insert, [now, group_id, group_id, fingerprint, text]),
    ], True


@functools.cache
def _store_sql() -> tuple[str, str]:
    """The two statements of :func:`_store_statements` (their text made once)."""
    standings = _q(GroupStanding._meta.db_table)
    types = ", ".join(f"{_q(c)} {t}" for c, t in STANDING_COLUMNS.items())
    names = ", ".join(_q(c) for c in STANDING_COLUMNS)
    values = ", ".join(f"r.{_q(c)}" for c in STANDING_COLUMNS)
    return (
        f"DELETE FROM {standings} WHERE group_id = %s",
        f"WITH marked AS (UPDATE {_q(Group._meta.db_table)} SET standings_at = %s WHERE id = %s)"
        f" INSERT INTO {standings} (group_id, {names}, fingerprint) SELECT %s, {values},"
        f" %s::bigint FROM jsonb_to_recordset(%s::jsonb) AS r({types})",
    )


def _changed(target: str, source: str, columns: Iterable[str]) -> str:
    """A condition true when a row of ``target`` differs from ``source`` in ``columns``."""
    names = [_q(c) for c in columns]
    return (
        f"({', '.join(f'{target}.{n}' for n in names)}) IS DISTINCT FROM"
        f" ({', '.join(f'{source}.{n}' for n in names)})"
    )


@functools.cache
def _computed_sql() -> str:
    """When a group's standings were computed (rows unchanged)."""
    return f"UPDATE {_q(Group._meta.db_table)} SET standings_at = %s WHERE id = %s"


@functools.cache
def _lock_sql() -> str:
    """A group recompute's first statement: its settings (derived data with its mark: a
    commit lost in a crash leaves the mark pending and the sweep recomputes it, so the commit
    need not wait for the disk; the prepared statements' generic plans, see :func:`_send`),
    then its stage's standings lock, shared, then the group's recompute lock (in that order:
    a select list is computed left to right)."""
    return (
        "SELECT set_config('synchronous_commit', 'off', true),"
        " set_config('plan_cache_mode', 'force_generic_plan', true),"
        " pg_advisory_xact_lock_shared(%s::integer, stage_id::integer),"
        " pg_advisory_xact_lock(%s::integer, id::integer)"
        f" FROM {_q(Group._meta.db_table)} WHERE id = %s"
    )


Statement = tuple[str, list[Any]]
# The states of a result that holds rows (psycopg's ``Cursor.description`` is None for others).
_ROWS = (psycopg.pq.ExecStatus.TUPLES_OK, psycopg.pq.ExecStatus.SINGLE_TUPLE)


def _send(statements: Sequence[Statement]) -> list[tuple[int, list[tuple] | None]]:
    """PostgreSQL: send ``statements`` in one message (psycopg's pipeline: one round trip;
    each statement still runs with a snapshot of its own, after the previous one); returns
    each one's row count and rows (None for a statement that returns none).

    Each statement with parameters is a prepared statement of the connection (made on its
    first use, kept while the connection lives): PostgreSQL plans a recompute's read once per
    connection instead of at every recompute (planning it cost as much as running it), and
    ``plan_cache_mode`` (set by the recompute's first message) keeps that generic plan from
    the first execution on. Parameters go apart from the text (server-side binding), which
    also spares quoting the rows' JSON into the text."""
    connection.ensure_connection()
    conn = connection.connection
    cursors: list[psycopg.Cursor] = []
    with conn.pipeline():
        for sql, params in statements:
            cursor = psycopg.Cursor(conn)
            cursor.execute(sql, params, prepare=bool(params))
            cursors.append(cursor)
    results: list[tuple[int, list[tuple] | None]] = []
    for cursor in cursors:
        # Whether it returned rows, without making its columns' descriptions.
        result = cursor.pgresult
        rows = cursor.fetchall() if result is not None and result.status in _ROWS else None
        results.append((cursor.rowcount, rows))
    return results


# ---------------------------------------------------------------------------
# Recomputing one group
# ---------------------------------------------------------------------------


def recompute_group(group_id: int) -> int:
    """Recompute and store a group's standings; returns the number of rows.

    Runs under the group's recompute lock (and its stage's standings lock, shared), so two
    recomputes of one group (two workers, or a duplicate), or one and the stage's pass,
    take turns instead of mixing their rows. The mark's count is read under the lock, with
    the games or before them: every change marked by then is in what is read, and the mark
    is cleared only if no change was marked meanwhile (else the next recompute is queued).

    Last, in the same transaction, the stage's stored ranking is marked as missing this
    change (for a closed stage also the later stages' rankings: their fallback keys): one
    rebuild is queued on commit for many group recomputes (``freshness.mark_rankings``).
    """
    rows = _recompute(group_id, only_if_pending=False)
    assert rows is not None
    return rows


def recompute_if_pending(group_id: int) -> int | None:
    """The recompute task: recompute the group unless its mark was cleared meanwhile (by an
    earlier copy of the task, or by the stage's pass: a re-queued or redelivered one then
    costs one read, under the group's lock, so a copy that waited for a running recompute
    does not repeat it)."""
    return _recompute(group_id, only_if_pending=True)


def _recompute(group_id: int, *, only_if_pending: bool) -> int | None:
    started = timezone.now()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            return _recompute_postgresql(group_id, only_if_pending, started)
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


def _recompute_postgresql(group_id: int, only_if_pending: bool, started: datetime) -> int | None:
    """:func:`_recompute` on PostgreSQL in two messages after psycopg's BEGIN: the locks and
    every read; the store (nothing if the rows are as stored), the settling, the ranking's
    mark, the pages' version and the COMMIT."""
    sql, parts = _one_group_sql()
    found = _send(
        [
            (_lock_sql(), [STAGE_STANDINGS_LOCK, GROUP_STANDINGS.lock_class, group_id]),
            (sql, [group_id]),
        ]
    )[-1][1]
    if not found:
        if only_if_pending:
            return None
        raise Group.DoesNotExist(f"no group {group_id}")
    seen, pending_since, stored_rows, stored, *values = found[0]
    if only_if_pending and pending_since is None:  # no mark, or cleared
        return None
    instances = []
    for model, names in parts:
        instances.append(_instance(model, names, values[: len(names)]))
        values = values[len(names) :]
    group, stage, tournament = instances
    stage.tournament = tournament
    group.stage = stage
    group.__dict__[_READ] = _read_of(values)
    table = compute_group(group)

    count = len(table.ranked)
    now = timezone.now()
    statements, written = _store_statements(
        table, (stored_rows, stored) if stored_rows == count else None, now
    )
    if seen is None or stage.status == Stage.Status.CLOSED:
        # Rare (a group never marked; a closed stage's later rankings): step by step.
        if written:
            pagecache.bump([(pagecache.GROUP, group_id)])
        _send(statements)
        GROUP_STANDINGS.settle(group_id, seen, started)
        mark_rankings(stage)
        return count
    # The usual case, in the same message: the mark settled and, if a row changed, the
    # ranking marked (its row is locked from there to the commit only: recomputes of the
    # stage's other groups wait for each other that long, no longer). Rows all the same:
    # the pages and the ranking stay as they are.
    settling = len(statements)  # the results of the statements after the store's
    statements.append(GROUP_STANDINGS.settle_statement(group_id, seen, started, now))
    if written:
        statements.append(STAGE_RANKING.mark_statement([stage.pk], now))
    else:  # the ranking, if it waits for the recomputes of its groups, rebuilt after this
        statements.append(STAGE_RANKING.mark_pending_statement(stage.pk, now))
    # Run by itself (not inside a caller's transaction), the message also bumps the pages'
    # versions and commits: the bump's row is locked for no longer than that (as if bumped
    # on commit, and seen by readers with the standings), and Django's commit then finds no
    # transaction left to commit (psycopg sends nothing). Inside a caller's transaction the
    # pages are bumped when it commits.
    outermost = len(connection.atomic_blocks) == 1 and not connection.savepoint_ids
    bump = pagecache.bump_statement([(pagecache.GROUP, group_id)]) if written else None
    if outermost:
        if bump is not None:
            statements.append(bump)
        statements.append(("COMMIT", []))
    elif written:
        pagecache.bump([(pagecache.GROUP, group_id)])
    results = _send(statements)
    settled = results[settling][1]
    if settled and not settled[0][0]:  # a change was marked since the read: it stays pending
        transaction.on_commit(lambda: GROUP_STANDINGS.queue([group_id]))
    queued = STAGE_RANKING.marked(results[settling + 1][1] or [])
    if queued:
        transaction.on_commit(lambda: STAGE_RANKING.queue(queued))
    if outermost and bump is not None:
        pagecache.bumped(results[settling + 2][1] or [])
    return count


_ONE_GROUP: tuple[str, list[tuple[type[models.Model], list[str]]]] | None = None
# The fields a recompute reads of its group, stage and tournament (the stage's has 54
# columns: loading them all cost a tenth of a recompute); any other is loaded when first
# used (Django's deferred fields), which a test makes sure does not happen.
_RECOMPUTE_FIELDS = {
    "group": ("id", "stage_id", "number", "size"),
    "stage": (
        "id",
        "tournament_id",
        "kind",
        "order",
        "format",
        "status",
        "games_per_player_override",
        "double_round_robin",
        "swiss_rounds",
    ),
    "tournament": (
        "id",
        "slug",
        "games_per_player",
        "points_win",
        "points_draw",
        "points_loss",
        "tiebreak",
        "ranking",
    ),
}


def _one_group_sql() -> tuple[str, list[tuple[type[models.Model], list[str]]]]:
    """The read of a recompute (PostgreSQL): one row, the group's mark (count and
    pending_since), the group's, its stage's and its tournament's columns, then its inputs
    (:func:`_inputs`)."""
    global _ONE_GROUP
    if _ONE_GROUP is None:
        parts: list[tuple[type[models.Model], list[str]]] = []
        selects: list[str] = []
        wanted: list[tuple[type[models.Model], str, tuple[str, ...]]] = [
            (Group, "g", _RECOMPUTE_FIELDS["group"]),
            (Stage, "sg", _RECOMPUTE_FIELDS["stage"]),
            (Tournament, "t", _RECOMPUTE_FIELDS["tournament"]),
        ]
        for model, alias, only in wanted:
            names, columns = _fields(model, alias, only)
            parts.append((model, names))
            selects += columns
        select, joins = _inputs()
        # How many rows the group has, and their fingerprint if they all have the same.
        stored = (
            " CROSS JOIN LATERAL (SELECT count(*) AS n, CASE WHEN count(*) = count(z.fingerprint)"
            " AND min(z.fingerprint) = max(z.fingerprint) THEN min(z.fingerprint) END AS f"
            f" FROM {_q(GroupStanding._meta.db_table)} z WHERE z.group_id = g.id) z"
        )
        sql = (
            f"SELECT m.changes, m.pending_since, z.n, z.f, {', '.join(selects)}, {select}"
            f" FROM {_q(Group._meta.db_table)} g"
            f" JOIN {_q(Stage._meta.db_table)} sg ON sg.id = g.stage_id"
            f" JOIN {_q(Tournament._meta.db_table)} t ON t.id = sg.tournament_id"
            f" LEFT JOIN {_q(StandingsMark._meta.db_table)} m ON m.group_id = g.id"
            f"{joins}{stored} WHERE g.id = %s"
        )
        _ONE_GROUP = (sql, parts)
        return sql, parts
    return _ONE_GROUP


# ---------------------------------------------------------------------------
# Recomputing every group of a stage
# ---------------------------------------------------------------------------

# The stage pass's staging table (temporary, dropped with its transaction).
_LOAD = "_standings_load"


def recompute_stage(stage_id: int, *, only_if_pending: bool = False) -> int:
    """Recompute and store the standings of every group of a stage (``only_if_pending``:
    of those whose mark is set, the stage task's) in one pass and one transaction; returns
    the number of groups recomputed. What many recomputes at once take (a big results
    import, a publication, a forced recompute, the sweep: ``freshness.GROUP_STANDINGS``
    queues the stage task for them).

    The same guarantees as :func:`recompute_group`, for every group: the marks' counts are
    read under the stage's standings lock (exclusive: every recompute of one of its groups
    waits, and it waits for those running), with the games; each mark is cleared only if
    no change was marked meanwhile, else its group stays pending and its recompute is
    queued again; the ranking is marked in the same transaction; the pages' versions move
    on commit.

    On PostgreSQL: one read of every group's seats, games and byes (one row per group,
    arrays, by group), the tie-breaks per group, one COPY of every row into a staging table
    and one message that writes them (the groups' rows locked in id order first, as every
    change locks them), then the marks settled in one statement. Elsewhere one
    :func:`recompute_group` (or :func:`recompute_if_pending`) per group.
    """
    started = timezone.now()
    with transaction.atomic():
        if connection.vendor != "postgresql":
            groups = Group.objects.filter(stage_id=stage_id).order_by("pk")
            if only_if_pending:
                groups = groups.filter(standings_mark__pending_since__isnull=False)
            ids = list(groups.values_list("pk", flat=True))
            done = [_recompute(pk, only_if_pending=only_if_pending) for pk in ids]
            return sum(1 for rows in done if rows is not None)
        return _recompute_stage_postgresql(stage_id, only_if_pending, started)


def _recompute_stage_postgresql(stage_id: int, only_if_pending: bool, started: datetime) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SET LOCAL synchronous_commit TO OFF;"  # as in a group's recompute
            # A thousand groups' arrays make a plan costly enough to be compiled, which
            # takes longer than running it.
            " SET LOCAL jit TO OFF;"
            " SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
            [STAGE_STANDINGS_LOCK, stage_id],
        )
    stage = Stage.objects.select_related("tournament").get(pk=stage_id)
    names = ["id", "stage_id", "number", "size"]  # what a table needs of its group
    select, joins = _inputs(withdrawn=False)
    # The stage's withdrawn entrants (a few), read once rather than looked up per seat.
    withdrawn = set(
        StageEntry.objects.filter(stage_id=stage_id, withdrawn_at__isnull=False).values_list(
            "entrant_id", flat=True
        )
    )
    pending = " AND m.pending_since IS NOT NULL" if only_if_pending else ""
    fallback = None
    if stage.order > 1:
        fallback = fallback_keys(stage, chain(stage.tournament))
    seen: dict[int, int | None] = {}
    changed: list[int] = []  # the groups whose rows are not the stored ones
    load_columns = (*STANDING_COLUMNS, "group_id")
    # Read in binary (arrays of integers), by a cursor of psycopg's own: Django's sends its
    # parameters as text, which gives text results.
    with psycopg.Cursor(connection.connection) as read, connection.cursor() as cursor:
        # The whole answer is in this process once execute returns: the same connection
        # then copies while the groups are computed one by one from it.
        read.execute(
            f"SELECT m.changes, {_stored_digest_sql('g.id')},"
            f" {', '.join(f'g.{_q(n)}' for n in names)}, {select}"
            f" FROM {_q(Group._meta.db_table)} g"
            f" LEFT JOIN {_q(StandingsMark._meta.db_table)} m ON m.group_id = g.id{joins}"
            f" WHERE g.stage_id = %s{pending} ORDER BY g.id",
            [stage_id],
            binary=True,
        )
        types = ", ".join(f"{_q(c)} {t}" for c, t in STANDING_COLUMNS.items())
        cursor.execute(f"CREATE TEMPORARY TABLE {_LOAD} ({types}, group_id bigint) ON COMMIT DROP")
        with cursor.copy(f"COPY {_LOAD} ({', '.join(map(_q, load_columns))}) FROM STDIN") as copy:
            while batch := read.fetchmany(64):
                lines: list[str] = []
                for changes, digest, *values in batch:
                    group = _instance(Group, names, values[: len(names)])
                    group.stage = stage
                    seen[group.pk] = changes
                    table = table_of(group, _read_of(values[len(names) :], withdrawn), fallback)
                    text = rows_text(table)
                    if rows_digest(text) == digest:  # the stored rows: not written again
                        continue
                    changed.append(group.pk)
                    # COPY's text format (see _ROW_TEXT), the group's id last on each line
                    lines.append(text.replace("\n", f"\t{group.pk}\n"))
                copy.write("".join(lines))
        if not seen:
            return 0
        ids = sorted(seen)
        standings, load = _q(GroupStanding._meta.db_table), _LOAD
        kept = ("entrant_id", "position")
        changing = [c for c in STANDING_COLUMNS if c not in kept]
        # A row changed here loses its fingerprint (see _fingerprint): a recompute writes it again.
        changes = ", ".join([*(f"{_q(c)} = l.{_q(c)}" for c in changing), "fingerprint = NULL"])
        names_listed = ", ".join(map(_q, load_columns))
        write = ""
        if changed:
            write = (
                # Every join below is of many rows: by hash, whatever the statistics say (with
                # the stored rows' statistics out of date — e.g. taken while the table was
                # empty — a nested loop over 100,000 rows each side would take hours).
                "SET LOCAL enable_nestloop TO off;"
                f" ANALYZE {load};"
                # The stored rows whose entrant is not at the same position any more; then the
                # others updated in place where they changed, and the new ones inserted.
                f" DELETE FROM {standings} s WHERE s.group_id = ANY(%s) AND NOT EXISTS"
                f" (SELECT FROM {load} l WHERE l.group_id = s.group_id"
                " AND l.entrant_id = s.entrant_id AND l.position = s.position);"
                f" UPDATE {standings} s SET {changes} FROM {load} l"
                " WHERE s.group_id = l.group_id AND s.entrant_id = l.entrant_id"
                f" AND {_changed('s', 'l', changing)};"
                f" INSERT INTO {standings} ({names_listed}) SELECT {names_listed} FROM {load} l"
                f" WHERE NOT EXISTS (SELECT FROM {standings} s"
                " WHERE s.group_id = l.group_id AND s.entrant_id = l.entrant_id);"
                " RESET enable_nestloop;"
            )
        cursor.execute(
            # The groups' rows first, in id order, as every change into a group locks it.
            f"SELECT FROM {_q(Group._meta.db_table)} WHERE id = ANY(%s) ORDER BY id"
            f" FOR NO KEY UPDATE; {write}"
            f" UPDATE {_q(Group._meta.db_table)} SET standings_at = %s WHERE id = ANY(%s);"
            f" DROP TABLE {load}",
            [ids, *([changed] if changed else []), timezone.now(), ids],
        )
    pagecache.bump([(pagecache.GROUP, pk) for pk in ids])
    GROUP_STANDINGS.settle_many(seen, started)
    mark_rankings(stage)
    return len(ids)
