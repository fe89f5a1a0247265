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
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from operator import itemgetter

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, Count, DateTimeField, F, Min, Q, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from kombu.exceptions import OperationalError

from apps.core.audit import Action, record
from apps.core.bulk import insert_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.core.results import Result, SideOutcome
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group, Seat
from apps.silli.systems import pairing_system
from apps.stages.models import Stage

from . import tiebreaks as tb
from .fallback import fallback_keys
from .models import FIGURES, GroupStanding, StandingsMark

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

    group_ids = list(group_ids)
    queued = 0
    for done, group_id in enumerate(group_ids):
        try:
            recompute_group_standings.apply_async((group_id,), countdown=COALESCE_SECONDS)
        except OperationalError:
            logger.warning(
                "Standings: the broker is unreachable; %s recompute(s) not queued (groups %s)."
                " Their marks stay; the sweep queues them again.",
                len(group_ids) - done,
                group_ids[done : done + 10],
                exc_info=True,
            )
            break
        except Exception:
            # Tasks run in this process (no broker): the recompute itself failed.
            logger.exception(
                "Standings of group %s: the recompute failed; its mark stays.", group_id
            )
        else:
            queued += 1
    return queued


def is_pending(group_id: int) -> bool:
    return StandingsMark.objects.filter(group_id=group_id, pending_since__isnull=False).exists()


def recompute_if_pending(group_id: int) -> int | None:
    """The recompute task: recompute the group unless its mark was cleared meanwhile (by an
    earlier copy of the task: a re-queued or redelivered one then costs one query)."""
    if not is_pending(group_id):
        return None
    return recompute_group(group_id)


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
    with transaction.atomic():
        stale = list(
            StandingsMark.objects.filter(pending_since__lte=cutoff)
            .filter(Q(requested_at__isnull=True) | Q(requested_at__lte=cutoff))
            .order_by("pending_since")
            .values_list("group_id", "pending_since")
        )
        group_ids = [pk for pk, _since in stale]
        if not group_ids:
            return []
        StandingsMark.objects.filter(group_id__in=group_ids).update(requested_at=now)
        transaction.on_commit(lambda: queue_recomputes(group_ids))
    logger.warning(
        "Standings of %s group(s) waited too long for their recompute (the oldest since %s);"
        " queued again: %s",
        len(group_ids),
        stale[0][1].isoformat(),
        group_ids[:20],
    )
    return group_ids


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


def _lock_recompute(group_id: int) -> None:
    """Take the group's recompute lock until the transaction ends. On PostgreSQL an advisory
    lock, not the group's row: result entry (which marks the group's row pending) goes on
    while a recompute runs. SQLite runs one writing transaction at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)", [RECOMPUTE_LOCK, group_id]
            )


def recompute_group(group_id: int) -> int:
    """Recompute and store a group's standings; returns the number of rows.

    Runs under the group's recompute lock, so two recomputes of one group (two workers, or a
    duplicate) take turns instead of mixing their rows. The mark's count is read under the
    lock, before the games: every change marked by then is in what is read, and the mark is
    cleared only if no change was marked meanwhile (else the next recompute is queued).
    """
    started = timezone.now()
    with transaction.atomic():
        _lock_recompute(group_id)
        group = Group.objects.select_related("stage__tournament").get(pk=group_id)
        seen = (
            StandingsMark.objects.filter(group_id=group_id)
            .values_list("changes", flat=True)
            .first()
        )
        rows = store_group_table(compute_group(group))
        _settle_mark(group_id, seen, started)
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
