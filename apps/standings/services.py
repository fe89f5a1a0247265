"""Standings of groups and stages, computed by the pure ``tiebreaks`` module.

**Keeping them fresh.** A result change *marks* its group (``models.StandingsMark``: pending
since when, and a count of marks) and queues one recompute task for it, on commit; while the
mark is set, further changes queue nothing more (coalesced). A recompute reads the mark's
count before it reads the games and clears the mark only if the count is still the same when
it has stored the standings — a change marked meanwhile keeps the mark and queues the next
recompute (no lost update). Queueing never fails a request: when the broker is away the mark
simply stays. A mark older than ``STANDINGS_STALE_SECONDS`` whose recompute was asked for
longer ago than that (its message never sent, or lost with a killed worker) is queued again
by the periodic :func:`sweep_stale_standings` (Celery beat), and by the next change of the
group; recomputes are idempotent, so a duplicate is harmless. Organizers can also force a
recompute (:func:`force_recompute`). Pages, API and qualification say "being updated since"
while a mark is set (:func:`pending_since`, :func:`stage_pending`).

**The stage's unified ranking is stored too** (``models.StageRankingRow``), and kept the same
way, one level up: each group recompute marks its stage's ranking (``models.RankingMark``) in
its own transaction and queues one rebuild on commit unless one was asked for lately; the
rebuild (:func:`rebuild_ranking`, under the stage's lock) waits while groups of the stage
changed lately still wait for their recomputes, then replaces the stored rows in one
transaction and clears the mark if no change was marked meanwhile. Many group recomputes (an
import, a publication) cost one rebuild. :func:`sweep_stale_rankings` queues again what a
broker outage left behind. Pages, API and CSV read the stored rows a page at a time
(:func:`stage_ranking_rows`, :func:`iter_stage_ranking`) and say "being updated" while the mark
is set (:func:`ranking_state`).
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from django.conf import settings
from django.db import connection, transaction
from django.db.models import (
    Case,
    Count,
    DateTimeField,
    Exists,
    F,
    Min,
    OuterRef,
    Q,
    Value,
    When,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from kombu.exceptions import OperationalError

from apps.core import pagecache
from apps.core.audit import Action, record
from apps.core.bulk import insert_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.core.results import Result, SideOutcome
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.scoring import tiebreaks as tb
from apps.silli.systems import pairing_system
from apps.stages.models import Stage

from .fallback import fallback_keys
from .models import FIGURES, GroupStanding, RankingMark, StageRankingRow, StandingsMark

logger = logging.getLogger(__name__)

COALESCE_SECONDS = 2
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


# ---------------------------------------------------------------------------
# The "recompute pending" mark
# ---------------------------------------------------------------------------


def stale_after() -> timedelta:
    """How long a mark may wait for its recompute before it is queued again."""
    return timedelta(seconds=getattr(settings, "STANDINGS_STALE_SECONDS", 60))


def schedule_recompute(group_id: int) -> bool:
    """Mark the group's standings pending and queue its recompute (on commit) unless one was
    asked for lately. True if this call queues it.

    Inside the transaction of the change, the mark commits with the change (call it there);
    outside one (e.g. from ``on_commit``) it is written and the task queued at once.
    """
    return bool(schedule_recomputes([group_id]))


def schedule_recomputes(group_ids: Iterable[int]) -> list[int]:
    """:func:`schedule_recompute` for several groups at once (a publication marks them all);
    returns the groups whose recompute this call queues."""
    queued = _mark(list(group_ids), timezone.now())
    if queued:
        transaction.on_commit(lambda: queue_recomputes(queued))
    return queued


def _mark(group_ids: list[int], now: datetime, *, force: bool = False) -> list[int]:
    """Mark the groups pending in the current transaction; returns those whose recompute is
    to be queued: newly marked, asked for longer ago than :func:`stale_after`, or all of them
    when ``force``.

    Row locks are taken as a recompute takes them, the group's first and then its mark, so a
    change marking a group waits for a recompute of it instead of deadlocking with it.
    """
    if not group_ids:
        return []
    Group.objects.filter(pk__in=group_ids).update(standings_pending=True)
    ask = Value(now, output_field=DateTimeField())
    if force:
        requested = ask
    else:
        requested = Case(
            When(
                Q(pending_since__isnull=True)
                | Q(requested_at__isnull=True)
                | Q(requested_at__lte=now - stale_after()),
                then=ask,
            ),
            default=F("requested_at"),
        )
    fields = {
        "changes": F("changes") + 1,
        "pending_since": Coalesce("pending_since", ask),
        "requested_at": requested,
    }
    marks = StandingsMark.objects.filter(group_id__in=group_ids)
    # A group's first mark creates its row (once; a row that exists is only updated).
    if len(group_ids) > 1 or not marks.update(**fields):
        StandingsMark.objects.bulk_create(
            [StandingsMark(group_id=pk) for pk in group_ids], ignore_conflicts=True
        )
        marks.update(**fields)
    return sorted(marks.filter(requested_at=now).values_list("group_id", flat=True))


def queue_recomputes(group_ids: Iterable[int]) -> int:
    """Queue one recompute task per group; returns how many were queued. Never raises: a
    recompute that cannot be queued leaves its mark, which the sweep queues again."""
    from .tasks import recompute_group_standings

    return _queue_each(
        recompute_group_standings, group_ids, COALESCE_SECONDS, "Standings", "recompute", "group"
    )


def _queue_each(task, ids: Iterable[int], countdown: float, what: str, step: str, of: str) -> int:
    """Queue ``task`` once per id after ``countdown`` seconds; returns how many were queued.
    Never raises: what cannot be queued keeps its mark, which a sweep queues again (logged as
    "``what``: … ``step``(s) not queued (``of``s …)")."""
    ids = list(ids)
    queued = 0
    for done, pk in enumerate(ids):
        try:
            task.apply_async((pk,), countdown=countdown)
        except OperationalError:
            logger.warning(
                "%s: the broker is unreachable; %s %s(s) not queued (%ss %s)."
                " Their marks stay; the sweep queues them again.",
                what,
                len(ids) - done,
                step,
                of,
                ids[done : done + 10],
                exc_info=True,
            )
            break
        except Exception:
            # Tasks run in this process (no broker): the step itself failed.
            logger.exception("%s of %s %s: the %s failed; its mark stays.", what, of, pk, step)
        else:
            queued += 1
    return queued


def is_pending(group_id: int) -> bool:
    return StandingsMark.objects.filter(group_id=group_id, pending_since__isnull=False).exists()


def recompute_if_pending(group_id: int) -> int | None:
    """The recompute task: recompute the group unless its mark was cleared meanwhile (by an
    earlier copy of the task: a re-queued or redelivered one then costs one query, read under
    the group's lock, so a copy that waited for a running recompute does not repeat it)."""
    return _recompute(group_id, only_if_pending=True)


def _settle_mark(group_id: int, seen: int | None, started: datetime) -> bool:
    """After storing standings computed with the mark's count at ``seen``: clear the mark if
    no change was marked since; else the standings miss only changes after ``started``, and
    the next recompute is queued (on commit). True if the standings are up to date."""
    marks = StandingsMark.objects.filter(group_id=group_id)
    if seen is not None and connection.vendor == "postgresql":
        # One statement (a recompute runs after every result): clear, and the mirror with it.
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH cleared AS (UPDATE {quote(StandingsMark._meta.db_table)}"
                " SET pending_since = NULL WHERE group_id = %s AND changes = %s"
                " RETURNING group_id)"
                f" UPDATE {quote(Group._meta.db_table)} SET standings_pending = false"
                " WHERE id IN (SELECT group_id FROM cleared)",
                [group_id, seen],
            )
            up_to_date = cursor.rowcount == 1
    else:
        if seen is None:
            up_to_date = not marks.exists()
        else:
            up_to_date = bool(marks.filter(changes=seen).update(pending_since=None))
        if up_to_date:
            Group.objects.filter(pk=group_id).update(standings_pending=False)
    if up_to_date:
        return True
    now = timezone.now()
    marks.filter(pending_since__lt=started).update(pending_since=started)
    marks.update(requested_at=now)
    transaction.on_commit(lambda: queue_recomputes([group_id]))
    return False


def sweep_stale_standings() -> list[int]:
    """Queue again the recompute of every group marked longer ago than :func:`stale_after`
    and whose recompute was asked for longer ago than that (the periodic beat task); returns
    those groups. Idempotent: a group whose first recompute is still to run gets a second
    one, which finds the mark cleared and does nothing."""
    now = timezone.now()
    cutoff = now - stale_after()
    due = StandingsMark.objects.filter(pending_since__lte=cutoff).filter(
        Q(requested_at__isnull=True) | Q(requested_at__lte=cutoff)
    )
    return _queue_again(
        due,
        "group_id",
        now,
        queue_recomputes,
        "Standings of %s group(s) waited too long for their recompute (the oldest since %s);"
        " queued again: %s",
    )


def _queue_again(due, key: str, now: datetime, queue, message: str) -> list[int]:
    """The sweeps' common step: the ``due`` marks (by ``key``) are asked for again at ``now``
    and ``queue`` queues their work on commit; logged with ``message``; returns their ids."""
    with transaction.atomic():
        stale = list(due.order_by("pending_since").values_list(key, "pending_since"))
        ids = [pk for pk, _since in stale]
        if not ids:
            return []
        due.model.objects.filter(**{f"{key}__in": ids}).update(requested_at=now)
        transaction.on_commit(lambda: queue(ids))
    logger.warning(message, len(ids), stale[0][1].isoformat(), ids[:20])
    return ids


def force_recompute(user, stage: Stage, group: Group | None = None) -> list[int]:
    """An organizer's "recompute the standings": every group of the stage (or ``group``) is
    marked pending and its recompute queued, whatever was asked before. Audited."""
    require_organizer(user, stage.tournament)
    if not stage.is_public:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Standings are kept once the draw is published; this stage is %(status)s.")
            % {"status": stage.get_status_display().lower()},
        )
    with transaction.atomic():
        if group is not None:
            group_ids = [group.pk]
        else:
            group_ids = list(Group.objects.filter(stage=stage).values_list("pk", flat=True))
        queued = _mark(group_ids, timezone.now(), force=True)
        record(
            Action.STANDINGS_RECOMPUTE_FORCED,
            user,
            stage=stage,
            group=group,
            groups=len(group_ids),
        )
        transaction.on_commit(lambda: queue_recomputes(queued))
    return group_ids


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
# Computing and storing
# ---------------------------------------------------------------------------


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
    if stage.is_swiss:
        # A Swiss round's pairing-allocated bye scores a win's points without a game
        # (FIDE C.04.1 f); the tie-breaks count it as unplayed (no opponent).
        for entrant in _byes(group):
            if entrant in records:
                records[entrant].append(tb.Game(None, tb.Outcome.WIN, played=False))
                finished[entrant] += 1
                scheduled[entrant] += 1
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


def _byes(group: Group) -> list[int]:
    """The entrants with a Swiss bye in the group, by round."""
    return list(
        SwissBye.objects.filter(group=group).order_by("round").values_list("entrant_id", flat=True)
    )


def _decimal(value) -> str:
    """A figure as text: exact for halves and quarters, else six decimals."""
    if not isinstance(value, Fraction):
        return str(value)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator in (2, 4):
        return str(Decimal(value.numerator) / value.denominator)
    return f"{float(value):.6f}".rstrip("0").rstrip(".")


# The class of the advisory locks that recomputes of one group take turns on.
RECOMPUTE_LOCK = 0x5354  # "ST"


def _advisory_lock(kind: int, key: int) -> None:
    """Take lock ``(kind, key)`` until the transaction ends: a PostgreSQL advisory lock.
    SQLite runs one writing transaction at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s::integer, %s::integer)", [kind, key])


def _lock_recompute(group_id: int) -> None:
    """Take the group's recompute lock until the transaction ends. On PostgreSQL an advisory
    lock, not the group's row: result entry (which marks the group's row pending) goes on
    while a recompute runs."""
    _advisory_lock(RECOMPUTE_LOCK, group_id)


def recompute_group(group_id: int) -> int:
    """Recompute and store a group's standings; returns the number of rows.

    Runs under the group's recompute lock, so two recomputes of one group (two workers, or a
    duplicate) take turns instead of mixing their rows. The mark's count is read under the
    lock, before the games: every change marked by then is in what is read, and the mark is
    cleared only if no change was marked meanwhile (else the next recompute is queued).

    Last, in the same transaction, the stage's stored ranking is marked as missing this
    change (for a closed stage also the later stages' rankings: their fallback keys): one
    rebuild is queued on commit for many group recomputes (:func:`mark_rankings`).
    """
    rows = _recompute(group_id, only_if_pending=False)
    assert rows is not None
    return rows


def _recompute(group_id: int, *, only_if_pending: bool) -> int | None:
    started = timezone.now()
    with transaction.atomic():
        _lock_recompute(group_id)
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
        _settle_mark(group_id, seen, started)
        # The ranking's mark row is locked from here to the commit only: recomputes of the
        # stage's other groups wait for each other that long, no longer.
        queued = mark_rankings(group.stage, timezone.now())
        if queued:
            transaction.on_commit(lambda: queue_ranking_rebuilds(queued))
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


# ---------------------------------------------------------------------------
# The stage's unified ranking: computed from the stored standings, stored, read by pages
# ---------------------------------------------------------------------------

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
# The class of the advisory locks that rebuilds of one stage's ranking take turns on.
RANKING_LOCK = 0x524B  # "RK"
# A rebuild waits this long after the first change it is queued for: the recomputes of the
# other groups changed at the same time (an import, a publication) are counted by it too.
RANKING_COALESCE_SECONDS = 5


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
# The stored ranking: marked when standings change, rebuilt once for many changes
# ---------------------------------------------------------------------------


def _ranking_ask(now: datetime) -> Case:
    """``requested_at`` of a mark being set now: now if its rebuild is to be queued (newly
    marked, or asked for longer ago than :func:`stale_after`), else as it was."""
    ask = Value(now, output_field=DateTimeField())
    return Case(
        When(
            Q(pending_since__isnull=True)
            | Q(requested_at__isnull=True)
            | Q(requested_at__lte=now - stale_after()),
            then=ask,
        ),
        default=F("requested_at"),
    )


def _mark_rankings(marks, now: datetime) -> list[int]:
    """Mark the rankings of ``marks`` (a RankingMark queryset) as missing a change; returns
    the stages whose rebuild is to be queued."""
    ask = Value(now, output_field=DateTimeField())
    marks.update(
        changes=F("changes") + 1,
        pending_since=Coalesce("pending_since", ask),
        requested_at=_ranking_ask(now),
    )
    return sorted(marks.filter(requested_at=now).values_list("stage_id", flat=True))


def mark_rankings(stage: Stage, now: datetime) -> list[int]:
    """Mark the stored ranking of ``stage`` as missing a change of its standings (and, for a
    closed stage, those of the tournament's later stages: its figures are their fallback
    keys; no later stage has entrants before its earlier stage closed). Call it in the
    transaction that stores the change; returns the stages whose rebuild the caller queues
    on commit (:func:`queue_ranking_rebuilds`): newly marked, or asked for longer ago than
    :func:`stale_after` — a stage marked again before its rebuild ran queues nothing more
    (coalesced).

    One statement (it runs after every group recompute): the stage's mark is created or
    updated and says whether this call asked for the rebuild.
    """
    ops, quote = connection.ops, connection.ops.quote_name
    table = quote(RankingMark._meta.db_table)
    asked = ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} AS m (stage_id, changes, pending_since, requested_at,"
            " built_at, entrants) VALUES (%s, 1, %s, %s, NULL, 0)"
            " ON CONFLICT (stage_id) DO UPDATE SET changes = m.changes + 1,"
            " pending_since = COALESCE(m.pending_since, excluded.pending_since),"
            " requested_at = CASE WHEN m.pending_since IS NULL OR m.requested_at IS NULL"
            " OR m.requested_at <= %s THEN excluded.requested_at ELSE m.requested_at END"
            " RETURNING requested_at = %s",
            [stage.pk, asked, asked, ops.adapt_datetimefield_value(now - stale_after()), asked],
        )
        (requested,) = cursor.fetchone()
    queued = [stage.pk] if requested else []
    if stage.status == Stage.Status.CLOSED:
        later = RankingMark.objects.filter(
            stage__tournament_id=stage.tournament_id, stage__order__gt=stage.order
        )
        queued += _mark_rankings(later, now)
    return queued


def queue_ranking_rebuilds(stage_ids: Iterable[int]) -> int:
    """Queue one ranking rebuild per stage, after :data:`RANKING_COALESCE_SECONDS`; returns
    how many were queued. Never raises: a rebuild that cannot be queued leaves its mark,
    which the sweep queues again."""
    from .tasks import rebuild_stage_ranking

    return _queue_each(
        rebuild_stage_ranking, stage_ids, RANKING_COALESCE_SECONDS, "Ranking", "rebuild", "stage"
    )


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
        _advisory_lock(RANKING_LOCK, stage_id)
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
        marks = RankingMark.objects.filter(stage_id=stage_id)
        seen = mark.changes
        if wait_for_groups and mark.waiting and mark.pending_since > started - stale_after():
            # The next mark queues the rebuild again. A mark set since the count was read
            # queued nothing (one was asked for): queue it here.
            if not marks.filter(changes=seen).update(requested_at=None):
                marks.update(requested_at=started)
                transaction.on_commit(lambda: queue_ranking_rebuilds([stage_id]))
            return None
        count = store_ranking(mark.stage, ranking_order(mark.stage), stored=mark.entrants)
        now = timezone.now()
        if marks.filter(changes=seen).update(
            pending_since=None, built_at=now, entrants=count, requested_at=None
        ):
            return count
        # Marked meanwhile: the stored rows miss only changes after ``started``.
        marks.update(built_at=now, entrants=count, requested_at=now)
        marks.filter(pending_since__lt=started).update(pending_since=started)
        transaction.on_commit(lambda: queue_ranking_rebuilds([stage_id]))
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


def sweep_stale_rankings() -> list[int]:
    """Queue again the rebuild of every ranking marked longer ago than :func:`stale_after`
    (or never built) whose rebuild was asked for longer ago than that (the periodic beat
    task, with the standings' sweep); returns those stages."""
    now = timezone.now()
    return _queue_again(
        RankingMark.objects.filter(_due(now)),
        "stage_id",
        now,
        queue_ranking_rebuilds,
        "The ranking of %s stage(s) waited too long for its rebuild (the oldest since %s);"
        " queued again: %s",
    )


def _due(now: datetime) -> Q:
    """Marks whose rebuild is overdue: set longer ago than :func:`stale_after` (or with no
    ranking stored yet) and asked for longer ago than that."""
    cutoff = now - stale_after()
    return (
        Q(pending_since__isnull=False)
        & (Q(pending_since__lte=cutoff) | Q(built_at__isnull=True))
        & (Q(requested_at__isnull=True) | Q(requested_at__lte=cutoff))
    )


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
        """Whether its rebuild is overdue (:func:`_due`)."""
        cutoff = now - stale_after()
        return (
            self.pending_since is not None
            and (self.pending_since <= cutoff or self.built_at is None)
            and (self.requested_at is None or self.requested_at <= cutoff)
        )


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
        with transaction.atomic():
            marks = RankingMark.objects.filter(_due(now), stage_id=stage.pk)
            queued = [stage.pk] if marks.update(requested_at=now) else []
            transaction.on_commit(lambda: queue_ranking_rebuilds(queued))
    elif GroupStanding.objects.filter(group__stage=stage).exists():
        with transaction.atomic():
            RankingMark.objects.bulk_create([RankingMark(stage_id=stage.pk)], ignore_conflicts=True)
            queued = _mark_rankings(RankingMark.objects.filter(stage_id=stage.pk), now)
            transaction.on_commit(lambda: queue_ranking_rebuilds(queued))
    else:
        return state
    # Tasks run in this process (no broker): the ranking may be rebuilt already.
    return _read_state(stage.pk) if queued else state


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
