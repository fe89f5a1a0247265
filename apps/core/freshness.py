"""Stored derived data kept fresh: mark, one queued rebuild, sweep, queue again.

Some tables hold what is derived from others, stored because deriving it on every read costs
too much: a group's standings (from its games), a stage's ranking (from its groups'
standings). Each such kind of data is a :class:`Derived`: a *mark* per item (a row of a
:class:`Mark` model, keyed by the item) and a Celery task that rebuilds one item.

1. **Mark** (:meth:`Derived.mark`, :meth:`Derived.schedule`), in the transaction of the
   change, so that the mark commits (or rolls back) with it: the item is pending since the
   oldest change its stored data may miss, ``changes`` counts the marks, and its rebuild is
   asked for (``requested_at``) unless it was lately — many changes, one queued task.
2. **Queue** (:meth:`Derived.queue`), on commit: one task per item, ``countdown`` seconds
   later, so that the changes made meanwhile are counted by it too. Queueing never raises: a
   task the broker does not take leaves its mark.
3. **Rebuild** (the task, under :meth:`Derived.lock`, so that two rebuilds of one item take
   turns): read the mark's count, then the sources, store, and :meth:`Derived.settle`: the
   mark is cleared only if its count is still the one read — a change marked meanwhile keeps
   it and queues the next rebuild (no lost update). A rebuild waiting for other work
   (:meth:`Derived.wait`) leaves the next mark to queue it.
4. **Sweep** (:meth:`Derived.sweep`, Celery beat): a mark pending longer than ``stale_after``
   whose rebuild was asked for longer ago than that (its task never sent, or lost with a
   worker) is asked for again and queued; a rebuild being idempotent, a duplicate finds the
   mark cleared and costs one read. :meth:`Derived.heal` does the same for one item, when a
   page reads it.

The task is named by its registered Celery name and looked up when it is queued: its module
imports the code that rebuilds, which marks, so importing it here would close a circle. The
app that declares a kind imports its tasks module when it is ready, so the task is
registered in every process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.db import DatabaseError, connection, models, transaction
from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from .bulk import column_of

logger = logging.getLogger(__name__)

# The mark's own columns; any other column of a mark model is the data's (e.g. when it was
# built), written with its default when a mark is created.
MARK_FIELDS = ("changes", "pending_since", "requested_at")


class Mark(models.Model):
    """Abstract: the freshness of one item of stored derived data (its key is the concrete
    model's primary key, e.g. the group)."""

    pending_since = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="the oldest change the stored data may miss; empty: up to date",
    )
    changes = models.PositiveBigIntegerField(
        default=0, help_text="how many times the item was marked (ever)"
    )
    requested_at = models.DateTimeField(
        null=True, blank=True, help_text="when its rebuild was last queued (or tried to be)"
    )

    class Meta:
        abstract = True


@dataclass(frozen=True)
class Derived:
    """One kind of stored derived data and how it is kept fresh (see the module)."""

    mark_model: type[Mark]
    # The marks' key column (the item's id), e.g. "group_id".
    key: str
    # The registered name of the task that rebuilds one item (its only argument: the id).
    task: str
    # Seconds from the first change to the rebuild: the changes made meanwhile join it.
    countdown: float
    # How long a mark may wait for its rebuild before it is queued again.
    stale_after: Callable[[], timedelta]
    # The class of the (PostgreSQL advisory) locks that rebuilds of one item take turns on.
    lock_class: int
    # For the log: what ("Standings"), the rebuild ("recompute"), an item ("group").
    what: str
    step: str
    item: str
    # A boolean column of another model (by the item's id) that mirrors "pending", for
    # readers that do not read the marks, e.g. (Group, "standings_pending").
    mirror: tuple[type[models.Model], str] | None = None
    # The marks' "last rebuilt at" column, if any: an item never built is due at once.
    built: str | None = None
    # Rebuilding many items in one pass: the registered name of a task that rebuilds every
    # pending item of one batch (its only argument: the batch's id, e.g. a stage's), the
    # function giving each batch's items (by batch id) of the items it is given, and how
    # many items of one batch, at least, go to that task rather than a task each (0: never).
    batch_task: str | None = None
    batch_of: Callable[[list[int]], dict[int, list[int]]] | None = None
    batch_min: Callable[[], int] = lambda: 0  # noqa: E731 (a default, not a name)

    def _marks(self, pks: Iterable[int]) -> models.QuerySet:
        return self.mark_model._default_manager.filter(**{f"{self.key}__in": list(pks)})

    def _set_mirror(self, pks: list[int], pending: bool) -> None:
        if self.mirror is not None:
            model, field = self.mirror
            model._default_manager.filter(pk__in=pks).update(**{field: pending})

    # -- 1. mark, 2. queue ---------------------------------------------------------------

    def mark(self, pks: Iterable[int], now: datetime, *, force: bool = False) -> list[int]:
        """Mark the items pending in the current transaction, creating their marks the first
        time; returns those whose rebuild is to be queued (call :meth:`queue` on commit):
        newly pending, or asked for longer ago than ``stale_after`` — or all, if ``force``.

        The mirror is written first and then the marks, in the items' order: the row locks
        are taken as a rebuild takes them, so a change waits for a rebuild of its item
        instead of deadlocking with it. The marks are one statement (a change of one item
        marks it after every result).
        """
        ids = sorted(set(pks))
        if not ids:
            return []
        self._set_mirror(ids, True)
        sql, params = self.mark_statement(ids, now, force=force)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return self.marked(cursor.fetchall())

    def mark_statement(
        self, ids: list[int], now: datetime, *, force: bool = False
    ) -> tuple[str, list[Any]]:
        """The statement :meth:`mark` sends for the marks of ``ids`` (sorted, not empty),
        without the mirror: for a caller that sends it together with others (a recompute
        marking its stage's ranking). Its rows go to :meth:`marked`."""
        ops, quote = connection.ops, connection.ops.quote_name
        meta = self.mark_model._meta
        others = [
            f for f in meta.concrete_fields if f.attname != self.key and f.name not in MARK_FIELDS
        ]
        columns = ", ".join(
            quote(c) for c in (self.key, *MARK_FIELDS, *(column_of(f) for f in others))
        )
        asked = ops.adapt_datetimefield_value(now)
        defaults = [f.get_db_prep_value(f.get_default(), connection) for f in others]
        values = ", ".join(["%s"] * (2 + len(others)))
        keys: list[int] | str
        if connection.vendor == "postgresql":
            source, key, keys = "unnest(%s::bigint[]) AS k", "k", ids
        else:  # SQLite
            source, key, keys = "json_each(%s) AS k", "k.value", json_list(ids)
        requested = "excluded.requested_at"
        if not force:
            requested = (
                "CASE WHEN m.pending_since IS NULL OR m.requested_at IS NULL"
                " OR m.requested_at <= %s THEN excluded.requested_at ELSE m.requested_at END"
            )
        stale = [] if force else [ops.adapt_datetimefield_value(now - self.stale_after())]
        sql = (
            f"INSERT INTO {quote(meta.db_table)} AS m ({columns})"
            f" SELECT {key}, 1, {values} FROM {source} WHERE true"
            f" ON CONFLICT ({quote(self.key)}) DO UPDATE SET changes = m.changes + 1,"
            " pending_since = COALESCE(m.pending_since, excluded.pending_since),"
            f" requested_at = {requested}"
            f" RETURNING {quote(self.key)}, requested_at = %s"
        )
        return sql, [asked, asked, *defaults, keys, *stale, asked]

    def mark_pending_statement(self, pk: int, now: datetime) -> tuple[str, list[Any]]:
        """A statement that marks the item only if it is pending already (:meth:`mark`
        otherwise: its count goes up, its rebuild is asked for if no request stands), for a
        caller whose work changed nothing but may be what a waiting rebuild waits for (a
        group's recompute that found its rows as stored: a ranking rebuild that waits for
        the groups' recomputes is queued by the last of them, see :meth:`wait`). Its rows go
        to :meth:`marked`."""
        ops, quote = connection.ops, connection.ops.quote_name
        asked = ops.adapt_datetimefield_value(now)
        stale = ops.adapt_datetimefield_value(now - self.stale_after())
        sql = (
            f"UPDATE {quote(self.mark_model._meta.db_table)} SET changes = changes + 1,"
            " requested_at = CASE WHEN requested_at IS NULL OR requested_at <= %s THEN %s"
            f" ELSE requested_at END WHERE {quote(self.key)} = %s AND pending_since IS NOT NULL"
            f" RETURNING {quote(self.key)}, requested_at = %s"
        )
        return sql, [stale, asked, pk, asked]

    @staticmethod
    def marked(rows: Iterable[tuple[int, bool]]) -> list[int]:
        """The items to queue, from the rows of :meth:`mark_statement`."""
        return sorted(pk for pk, queued in rows if queued)

    def schedule(self, pks: Iterable[int], *, force: bool = False) -> list[int]:
        """:meth:`mark` the items now and :meth:`queue` their rebuilds on commit (at once
        outside a transaction); returns the items queued."""
        queued = self.mark(pks, timezone.now(), force=force)
        if queued:
            transaction.on_commit(lambda: self.queue(queued))
        return queued

    def queue(self, pks: Iterable[int]) -> int:
        """Queue one rebuild per item, after ``countdown`` seconds — or, for the items of a
        batch that has at least ``batch_min`` of them, one rebuild of the batch; returns how
        many items were queued. Never raises: what cannot be queued keeps its mark, which
        the sweep queues again."""
        task = current_app.tasks[self.task]
        ids = list(pks)
        queued = 0
        if self.batch_task is not None and len(ids) >= max(self.batch_min(), 1):
            batched, ids = self._queue_batches(ids)
            if batched is None:  # the broker is unreachable
                return 0
            queued += batched
        for done, pk in enumerate(ids):
            try:
                task.apply_async((pk,), countdown=self.countdown)
            except OperationalError:
                logger.warning(
                    "%s: the broker is unreachable; %s %s(s) not queued (%ss %s)."
                    " Their marks stay; the sweep queues them again.",
                    self.what,
                    len(ids) - done,
                    self.step,
                    self.item,
                    ids[done : done + 10],
                    exc_info=True,
                )
                break
            except Exception:
                # Tasks run in this process (no broker): the rebuild itself failed.
                logger.exception(
                    "%s of %s %s: the %s failed; its mark stays.",
                    self.what,
                    self.item,
                    pk,
                    self.step,
                )
            else:
                queued += 1
        return queued

    def _queue_batches(self, ids: list[int]) -> tuple[int | None, list[int]]:
        """Queue the batch rebuilds for ``ids``: how many items they cover (None if the broker
        is unreachable), and the items left to queue one by one."""
        assert self.batch_task is not None and self.batch_of is not None
        least = max(self.batch_min(), 1)
        try:
            batches = self.batch_of(ids)
        except DatabaseError:
            logger.warning("%s: the batches of %s could not be read", self.what, ids[:10])
            return 0, ids
        task = current_app.tasks[self.batch_task]
        rest: list[int] = []
        queued = 0
        for batch, items in sorted(batches.items()):
            if len(items) < least:
                rest += items
                continue
            try:
                task.apply_async((batch,), countdown=self.countdown)
            except OperationalError:
                logger.warning(
                    "%s: the broker is unreachable; the %s of %s %s(s) not queued."
                    " Their marks stay; the sweep queues them again.",
                    self.what,
                    self.step,
                    len(ids),
                    self.item,
                    exc_info=True,
                )
                return None, []
            except Exception:
                # Tasks run in this process (no broker): the rebuild itself failed.
                logger.exception(
                    "%s of %s %s(s) of batch %s: the %s failed; their marks stay.",
                    self.what,
                    len(items),
                    self.item,
                    batch,
                    self.step,
                )
            else:
                queued += len(items)
        return queued, sorted(rest)

    # -- 3. rebuild ---------------------------------------------------------------------

    def lock(self, pk: int) -> None:
        """Take the item's rebuild lock until the transaction ends: on PostgreSQL an advisory
        lock, not a row, so that changes (which mark the item) go on while it is rebuilt.
        SQLite runs one writing transaction at a time anyway."""
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)", [self.lock_class, pk]
                )

    def settle(self, pk: int, seen: int | None, started: datetime, **values: Any) -> bool:
        """After storing the item rebuilt from what the mark's count ``seen`` covered (None:
        it had no mark), with ``values`` for the mark's other columns: clear the mark if no
        change was marked since; else the stored data misses only changes after
        ``started``, and the next rebuild is queued (on commit). True if it is up to date."""
        marks = self._marks([pk])
        one_statement = self.mirror is not None and not values
        if seen is not None and one_statement and connection.vendor == "postgresql":
            sql, params = self.clear_statement(pk, seen)
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
                up_to_date = cursor.rowcount == 1
        else:
            if seen is None:
                up_to_date = not marks.exists()
            else:
                cleared = marks.filter(changes=seen)
                up_to_date = bool(cleared.update(pending_since=None, requested_at=None, **values))
            if up_to_date:
                self._set_mirror([pk], False)
        if up_to_date:
            return True
        self.unsettled([pk], started, **values)
        return False

    def clear_statement(self, pk: int, seen: int) -> tuple[str, list[Any]]:
        """The one statement (PostgreSQL, a kind with a mirror) that clears the mark and its
        mirror if the mark's count is still ``seen`` (a rebuild runs after every change): it
        changes one row then, which says the item is up to date. For a caller that sends it
        together with others."""
        assert self.mirror is not None
        model, field = self.mirror
        quote = connection.ops.quote_name
        sql = (
            f"WITH cleared AS (UPDATE {quote(self.mark_model._meta.db_table)}"
            " SET pending_since = NULL, requested_at = NULL"
            f" WHERE {quote(self.key)} = %s AND changes = %s RETURNING {quote(self.key)})"
            f" UPDATE {quote(model._meta.db_table)} SET {quote(field)} = false"
            f" WHERE {quote(column_of(model._meta.pk))}"
            f" IN (SELECT {quote(self.key)} FROM cleared)"
        )
        return sql, [pk, seen]

    def settle_statement(
        self, pk: int, seen: int, started: datetime, now: datetime
    ) -> tuple[str, list[Any]]:
        """:meth:`settle` as one statement (PostgreSQL, a kind with a mirror, a mark read),
        for a caller that sends it together with others: the mark cleared with its mirror if
        its count is still ``seen``, else left pending (since ``started`` at the latest) and
        asked for ``now``. It returns one row, whether the item is up to date; if not, the
        caller queues its rebuild on commit. One UPDATE of the mark: its CASE sees the mark
        as it is when its row is locked, whatever was committed since the statement began."""
        assert self.mirror is not None
        model, field = self.mirror
        quote = connection.ops.quote_name
        key = quote(self.key)
        sql = (
            f"WITH settled AS (UPDATE {quote(self.mark_model._meta.db_table)} SET"
            " pending_since = CASE WHEN changes = %s THEN NULL"
            " WHEN pending_since < %s THEN %s ELSE pending_since END,"
            " requested_at = CASE WHEN changes = %s THEN NULL ELSE %s END"
            f" WHERE {key} = %s RETURNING {key}, changes = %s AS cleared),"
            f" mirrored AS (UPDATE {quote(model._meta.db_table)} SET {quote(field)} = false"
            f" WHERE {quote(column_of(model._meta.pk))}"
            f" IN (SELECT {key} FROM settled WHERE cleared))"
            " SELECT cleared FROM settled"
        )
        return sql, [seen, started, started, seen, now, pk, seen]

    def unsettled(self, pks: list[int], started: datetime, **values: Any) -> None:
        """Items rebuilt from what their marks counted when the rebuild began, whose marks
        counted more since: they stay pending (since ``started`` at the latest: the stored
        data may miss only what came after) and their next rebuild is queued on commit."""
        marks = self._marks(pks)
        marks.update(requested_at=timezone.now(), **values)
        marks.filter(pending_since__lt=started).update(pending_since=started)
        transaction.on_commit(lambda: self.queue(pks))

    def settle_many(self, seen: dict[int, int | None], started: datetime) -> list[int]:
        """:meth:`settle` for many items rebuilt together (a kind with a mirror); returns the
        items left pending. On PostgreSQL set-based: the marks locked in id order, one
        statement clearing those still at the count read (and the mirrors of those and of the
        items that have no mark), the others left pending and queued again. The caller locks
        the items' mirror rows first, in id order, as every change locks them before the
        marks."""
        assert self.mirror is not None
        if connection.vendor != "postgresql":
            return [pk for pk, count in sorted(seen.items()) if not self.settle(pk, count, started)]
        model, field = self.mirror
        quote = connection.ops.quote_name
        table, key = quote(self.mark_model._meta.db_table), quote(self.key)
        mirror, mirror_pk = quote(model._meta.db_table), quote(column_of(model._meta.pk))
        counted = sorted(pk for pk, count in seen.items() if count is not None)
        unmarked = sorted(pk for pk, count in seen.items() if count is None)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT FROM {table} WHERE {key} = ANY(%s) ORDER BY {key} FOR NO KEY UPDATE;"
                f" WITH seen AS (SELECT * FROM unnest(%s::bigint[], %s::bigint[]) AS s(pk, n)),"
                f" cleared AS (UPDATE {table} m SET pending_since = NULL, requested_at = NULL"
                f" FROM seen WHERE m.{key} = seen.pk AND m.changes = seen.n RETURNING m.{key}),"
                f" up AS (SELECT {key} AS pk FROM cleared UNION ALL"
                " SELECT pk FROM unnest(%s::bigint[]) AS u(pk)"
                f" WHERE NOT EXISTS (SELECT FROM {table} m WHERE m.{key} = u.pk))"
                f" UPDATE {mirror} SET {quote(field)} = false"
                f" WHERE {mirror_pk} IN (SELECT pk FROM up) RETURNING {mirror_pk}",
                [sorted(seen), counted, [seen[pk] for pk in counted], unmarked],
            )
            cursor.nextset()
            up_to_date = {pk for (pk,) in cursor.fetchall()}
        pending = sorted(set(seen) - up_to_date)
        if pending:
            self.unsettled(pending, started)
        return pending

    def wait(self, pk: int, seen: int, now: datetime) -> None:
        """Leave the item's rebuild to the next mark (it waits for work that marks it again
        when done): no request stands. If a change was marked since ``seen``, that mark
        asked for nothing (one was asked for): queue it now, on commit."""
        marks = self._marks([pk])
        if not marks.filter(changes=seen).update(requested_at=None):
            marks.update(requested_at=now)
            transaction.on_commit(lambda: self.queue([pk]))

    # -- 4. sweep -----------------------------------------------------------------------

    def due(self, now: datetime) -> Q:
        """The marks whose rebuild is overdue: pending longer than ``stale_after`` (or never
        built) and asked for longer ago than that."""
        cutoff = now - self.stale_after()
        waited = Q(pending_since__lte=cutoff)
        if self.built is not None:
            waited |= Q(**{f"{self.built}__isnull": True})
        asked = Q(requested_at__isnull=True) | Q(requested_at__lte=cutoff)
        return Q(pending_since__isnull=False) & waited & asked

    def is_due(
        self,
        now: datetime,
        pending_since: datetime | None,
        requested_at: datetime | None,
        built_at: datetime | None = None,
    ) -> bool:
        """:meth:`due` for one mark's values, read already."""
        cutoff = now - self.stale_after()
        never_built = self.built is not None and built_at is None
        return (
            pending_since is not None
            and (pending_since <= cutoff or never_built)
            and (requested_at is None or requested_at <= cutoff)
        )

    def sweep(self, now: datetime | None = None) -> list[int]:
        """Queue again the rebuild of every item whose mark is :meth:`due` (the periodic
        beat task); returns those items. A duplicate of a rebuild still to run finds the
        mark cleared and does nothing."""
        now = now or timezone.now()
        with transaction.atomic():
            due = self.mark_model._default_manager.filter(self.due(now)).order_by("pending_since")
            stale = list(due.values_list(self.key, "pending_since"))
            ids = [pk for pk, _since in stale]
            if not ids:
                return []
            self._marks(ids).update(requested_at=now)
            transaction.on_commit(lambda: self.queue(ids))
        logger.warning(
            "%s: %s %s(s) waited too long for their %s (the oldest since %s); queued again: %s",
            self.what,
            len(ids),
            self.item,
            self.step,
            stale[0][1].isoformat(),
            ids[:20],
        )
        return ids

    def heal(self, pk: int, now: datetime) -> bool:
        """The sweep for one item (a page found it waiting): queue its rebuild again if its
        mark is :meth:`due`; True if queued."""
        with transaction.atomic():
            due = self.mark_model._default_manager.filter(self.due(now), **{self.key: pk})
            if not due.update(requested_at=now):
                return False
            transaction.on_commit(lambda: self.queue([pk]))
        return True


def json_list(ids: list[int]) -> str:
    """Ids as a JSON array: SQLite's ``json_each`` reads them as rows."""
    return "[" + ",".join(str(int(pk)) for pk in ids) + "]"
