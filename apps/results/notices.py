"""What players hear of results that came in bulk: an import tells each player whose results
it set, in one digest e-mail per player per import (``apps.notifications``: built and sent by
tasks in batches of players after the commit, each e-mail once, following the player's
"results of my games" preference).

The import calls :func:`tell_players_of_import` in its transaction once the games and the
import's audit event are written (``imports._apply``); the event lists the games whose
results the import set, and the tasks read them from there.
"""

from __future__ import annotations

from django.db import transaction

from apps.core.models import AuditEvent
from apps.notifications import tasks as notify


def tell_players_of_import(event: AuditEvent) -> None:
    """Queue, on commit, the players' digests of the import ``event`` (a
    ``results.imported`` event; nothing when it set no result)."""
    if event.data.get("entered"):
        transaction.on_commit(lambda: notify.results_imported.delay(event.pk))
