"""Writing many rows at once: COPY on PostgreSQL, batched ``bulk_create`` elsewhere."""

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
