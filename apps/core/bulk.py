"""Writing many rows at once: COPY on PostgreSQL, batched ``bulk_create`` elsewhere; and
changing many rows by key, one prepared UPDATE run for each (``executemany``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.models import JSONField, Model

BATCH = 10_000
ANALYZE_ABOVE = 10_000


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Insert ``rows``, tuples of field values in ``columns`` order (``group_id`` for a key).

    JSON fields take any JSON-able value. Every other field takes what saving a new
    ``model()`` would give it: its default, or the time for ``auto_now`` fields. Call it
    inside the caller's transaction.
    """
    if connection.vendor != "postgresql":
        _bulk_create(model, columns, rows)
        return
    given = [model._meta.get_field(c) for c in columns]
    others = [
        f
        for f in model._meta.concrete_fields
        if f not in given and not (f.primary_key or f.generated or f.has_db_default())
    ]
    blank = model()
    defaults = tuple(f.get_db_prep_save(f.pre_save(blank, add=True), connection) for f in others)
    adapt = [f.get_db_prep_save if isinstance(f, JSONField) else None for f in given]
    if any(adapt):
        rows = (
            tuple(v if a is None else a(v, connection) for v, a in zip(row, adapt, strict=True))
            for row in rows
        )
    quote = connection.ops.quote_name
    names = ", ".join(quote(f.column) for f in (*given, *others))
    table = quote(model._meta.db_table)
    written = 0
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row((*row, *defaults))
                written += 1
        if written >= ANALYZE_ABOVE:
            # Fresh statistics now, not whenever autovacuum comes by: without them the
            # planner may scan half a million games to read one group's.
            cursor.execute(f"ANALYZE {table}")


def _bulk_create(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    batch = []
    for row in rows:
        batch.append(model(**dict(zip(columns, row, strict=True))))
        if len(batch) >= BATCH:
            model.objects.bulk_create(batch)
            batch = []
    if batch:
        model.objects.bulk_create(batch)


def update_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Set ``columns`` of many rows by primary key: each row is ``(pk, *values)``, the values
    in ``columns`` order (``group_id`` for a key). Returns how many rows were given.

    One UPDATE statement run for every row (``executemany``: a pipeline on PostgreSQL),
    BATCH rows at a time. ``bulk_update`` builds a CASE expression per field and row, which
    costs milliseconds a row in Python: half an hour for 500,000 results. Values are
    prepared as saving the model would; call it inside the caller's transaction.
    """
    fields = [model._meta.get_field(c) for c in columns]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    key = quote(model._meta.pk.column)
    sql = f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {key} = %s"
    count = 0
    batch: list[list] = []
    with connection.cursor() as cursor:
        for pk, *values in rows:
            prepared = [
                f.get_db_prep_save(v, connection) for f, v in zip(fields, values, strict=True)
            ]
            batch.append([*prepared, pk])
            count += 1
            if len(batch) >= BATCH:
                cursor.executemany(sql, batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)
    return count
