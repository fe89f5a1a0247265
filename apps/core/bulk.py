"""Writing many rows at once: COPY on PostgreSQL, batched ``bulk_create`` elsewhere; and
changing many rows by key: COPY into a temporary table and ``UPDATE … FROM`` it on
PostgreSQL (for more than a few rows), one prepared UPDATE run for each (``executemany``)
otherwise."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from django.db import connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, JSONField, Model

BATCH = 10_000
ANALYZE_ABOVE = 10_000
# update_rows copies more rows than this into a temporary table (on PostgreSQL).
COPY_ABOVE = 1_000


def field_of(model: type[Model], name: str) -> Field:
    """The concrete field ``name`` of ``model`` (``get_field`` also finds reverse relations,
    which have no column)."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field):
        raise TypeError(f"{model.__name__}.{name} is a reverse relation, not a column")
    return field


def column_of(field: Field) -> str:
    """The column of a concrete field (``Field.column`` is None only for fields without one)."""
    if field.column is None:
        raise TypeError(f"{field} has no column")
    return field.column


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Insert ``rows``, tuples of field values in ``columns`` order (``group_id`` for a key).

    JSON fields take any JSON-able value. Every other field takes what saving a new
    ``model()`` would give it: its default, or the time for ``auto_now`` fields. Call it
    inside the caller's transaction.
    """
    if connection.vendor != "postgresql":
        _bulk_create(model, columns, rows)
        return
    # The connection itself, not the proxy: JSON values are prepared with it.
    db = connections[connection.alias]
    given, others, defaults = _columns(model, columns, db)
    json_columns = [
        (i, _json_adapter(f, db)) for i, f in enumerate(given) if isinstance(f, JSONField)
    ]
    quote = db.ops.quote_name
    names = ", ".join(quote(column_of(f)) for f in (*given, *others))
    table = quote(model._meta.db_table)
    written = 0
    with db.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                if json_columns:
                    row = list(row)
                    for i, adapt in json_columns:
                        row[i] = adapt(row[i])
                copy.write_row((*row, *defaults))
                written += 1
        if written >= ANALYZE_ABOVE:
            # Fresh statistics now, not whenever autovacuum comes by: without them the
            # planner may scan half a million games to read one group's.
            cursor.execute(f"ANALYZE {table}")


def _columns(
    model: type[Model], columns: Sequence[str], db: BaseDatabaseWrapper
) -> tuple[list[Field], list[Field], tuple[Any, ...]]:
    """The fields named by ``columns``, the model's other fields a row gets a value for, and
    those values: what saving a new ``model()`` gives each (its default, or the time for
    ``auto_now`` fields), prepared for ``db``."""
    given = [field_of(model, c) for c in columns]
    others = [
        f
        for f in model._meta.concrete_fields
        if f not in given and not (f.primary_key or f.generated or f.has_db_default())
    ]
    blank = model()
    defaults = tuple(f.get_db_prep_save(f.pre_save(blank, add=True), db) for f in others)
    return given, others, defaults


def insert_select(
    model: type[Model], columns: Sequence[str], select: str, params: Sequence[Any] = ()
) -> int:
    """Insert the rows of a query (PostgreSQL): ``select`` gives the values of ``columns``
    (``group_id`` for a key), in that order, typed (cast the query's parameters); every
    other field gets what :func:`insert_rows` gives it. The rows never reach Python. Returns
    how many were inserted."""
    db = connections[connection.alias]
    given, others, defaults = _columns(model, columns, db)
    quote = db.ops.quote_name
    names = ", ".join(quote(column_of(f)) for f in (*given, *others))
    table = quote(model._meta.db_table)
    # Typed: a parameter in a query's select list is read as text.
    extra = "".join(f", CAST(%s AS {f.db_type(db)})" for f in others)
    with db.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({names}) SELECT q.*{extra} FROM ({select}) q",
            [*defaults, *params],  # in the order of the text: the defaults come first
        )
        written = cursor.rowcount
        if written >= ANALYZE_ABOVE:
            cursor.execute(f"ANALYZE {table}")
    return written


def _json_adapter(field: JSONField, db: BaseDatabaseWrapper) -> Callable[[Any], Any]:
    """A JSON field's value as COPY takes it: a dict or a list as its JSON text, which
    PostgreSQL reads into the column as it reads the adapter ``get_db_prep_save`` makes of
    it (the same ``json.dumps``), without an adapter a row; anything else as saving the
    model prepares it."""
    dumps = json.dumps if field.encoder is None else partial(json.dumps, cls=field.encoder)

    def adapt(value: Any) -> Any:
        if type(value) is dict or type(value) is list:
            return dumps(value)
        return field.get_db_prep_save(value, db)

    return adapt


def _bulk_create(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    batch = []
    for row in rows:
        batch.append(model(**dict(zip(columns, row, strict=True))))
        if len(batch) >= BATCH:
            model._default_manager.bulk_create(batch)
            batch = []
    if batch:
        model._default_manager.bulk_create(batch)


def update_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Set ``columns`` of many rows by primary key: each row is ``(pk, *values)``, the values
    in ``columns`` order (``group_id`` for a key), each key at most once. Returns how many
    rows were given.

    On PostgreSQL more than COPY_ABOVE rows are copied (COPY) into a temporary table and
    written by one ``UPDATE … FROM`` it. Fewer rows, and any number elsewhere, are written
    by one UPDATE statement run for every row (``executemany``, a pipeline on PostgreSQL),
    BATCH rows at a time: a temporary table is not worth its statements (and its catalog
    rows) for a few rows, and for many rows a statement each costs several times the COPY,
    in Python and in the server. ``bulk_update`` builds a CASE expression per field and row,
    which costs milliseconds a row in Python: half an hour for 500,000 results. Values are
    prepared as saving the model would; call it inside the caller's transaction.
    """
    fields = [field_of(model, c) for c in columns]
    # The connection itself, not the proxy: each value is prepared with it.
    db = connections[connection.alias]
    rows = iter(rows)
    if db.vendor == "postgresql":
        first = list(itertools.islice(rows, COPY_ABOVE + 1))
        if len(first) > COPY_ABOVE:
            return _update_copied(db, model, fields, itertools.chain(first, rows))
        rows = iter(first)
    return _update_each(db, model, fields, rows)


def _update_each(
    db: BaseDatabaseWrapper, model: type[Model], fields: Sequence[Field], rows: Iterable[Sequence]
) -> int:
    """``update_rows`` by one UPDATE statement a row, BATCH rows an ``executemany``."""
    quote = db.ops.quote_name
    assignments = ", ".join(f"{quote(column_of(f))} = %s" for f in fields)
    key = quote(column_of(model._meta.pk))
    sql = f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {key} = %s"
    count = 0
    batch: list[list] = []
    with db.cursor() as cursor:
        for pk, *values in rows:
            batch.append([*_prepared(db, fields, values), pk])
            count += 1
            if len(batch) >= BATCH:
                cursor.executemany(sql, batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)
    return count


def _prepared(db: BaseDatabaseWrapper, fields: Sequence[Field], values: Sequence) -> list:
    return [f.get_db_prep_save(v, db) for f, v in zip(fields, values, strict=True)]


def _update_copied(
    db: BaseDatabaseWrapper, model: type[Model], fields: Sequence[Field], rows: Iterable[Sequence]
) -> int:
    """``update_rows`` on PostgreSQL: the rows copied into a temporary table with the
    columns' types (and no constraints: the UPDATE checks them), then one UPDATE joining it
    by key."""
    quote = db.ops.quote_name
    table = quote(model._meta.db_table)
    key = quote(column_of(model._meta.pk))
    names = [quote(column_of(f)) for f in fields]
    listed = ", ".join([key, *names])
    staged = quote(f"_update_{model._meta.db_table}")
    count = 0
    with transaction.atomic(using=db.alias, savepoint=False), db.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {staged} ON COMMIT DROP AS "
            f"SELECT {listed} FROM {table} WITH NO DATA"
        )
        with cursor.copy(f"COPY {staged} ({listed}) FROM STDIN") as copy:
            for pk, *values in rows:
                copy.write_row((pk, *_prepared(db, fields, values)))
                count += 1
        # Without statistics the planner reckons the rows from the table's pages (ten at
        # least): a nested loop over the key's index for a few thousand, a hash join for more.
        cursor.execute(
            f"UPDATE {table} AS target SET "
            + ", ".join(f"{name} = staged.{name}" for name in names)
            + f" FROM {staged} AS staged WHERE target.{key} = staged.{key}"
        )
        cursor.execute(f"DROP TABLE {staged}")
    return count
