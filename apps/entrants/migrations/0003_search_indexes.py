"""Indexes for "find a player" (apps/standings/views.py find_player, /api/players/), on PostgreSQL.

The search is ``name__icontains=q | code__iexact=q``, which Django sends to PostgreSQL as
``UPPER(name::text) LIKE UPPER('%q%') OR UPPER(code::text) = UPPER('q')``. Indexes on
exactly those expressions let the planner answer both sides from indexes (a BitmapOr) instead
of reading every entrant:

- ``entrant_name_upper_trgm``: GIN over the trigrams (pg_trgm) of ``UPPER(name::text)``, for
  "a part of the name" (three characters or more; one or two match so many entrants that
  reading them all is what the planner picks anyway);
- ``entrant_code_upper_pattern``: a btree over ``UPPER(code::text)`` with ``text_pattern_ops``,
  for the exact code, and usable by a code-prefix search (``LIKE 'E0123%'``) too.

SQLite has neither trigrams nor operator classes; there the operations do nothing and the search
stays as it was (small sites). The indexes are outside the model state on purpose: a GinIndex in
``Entrant.Meta.indexes`` would be re-created by SQLite's table rebuilds (any later AlterField of
the table) and fail there. A later migration that changes ``name`` or ``code`` keeps them on
PostgreSQL (ALTER COLUMN ... TYPE rebuilds dependent indexes).
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations


class RunSQLOnPostgreSQL(migrations.RunSQL):
    """RunSQL that runs on PostgreSQL only (and, like any RunSQL, leaves the model state
    alone)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)

    def describe(self):
        return "Raw SQL operation (PostgreSQL only)"


class Migration(migrations.Migration):

    dependencies = [
        ("entrants", "0002_import_jobs"),
    ]

    operations = [
        # CREATE EXTENSION IF NOT EXISTS pg_trgm; does nothing on other databases.
        TrigramExtension(),
        # Written as SQL: a GinIndex(OpClass(Upper(...))) needs django.contrib.postgres in
        # INSTALLED_APPS to be rendered right, and the expressions must be exactly those of
        # Django's lookups for the planner to match them.
        RunSQLOnPostgreSQL(
            sql="CREATE INDEX entrant_name_upper_trgm ON entrants_entrant "
            "USING gin ((UPPER(name::text)) gin_trgm_ops)",
            reverse_sql="DROP INDEX IF EXISTS entrant_name_upper_trgm",
        ),
        RunSQLOnPostgreSQL(
            sql="CREATE INDEX entrant_code_upper_pattern ON entrants_entrant "
            "((UPPER(code::text)) text_pattern_ops)",
            reverse_sql="DROP INDEX IF EXISTS entrant_code_upper_pattern",
        ),
    ]
