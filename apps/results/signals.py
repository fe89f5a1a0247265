"""What the results app tells the apps above it, which it may not import.

``results_changed`` is sent after the commit of every change of results (one game's result,
a withdrawal's forfeits, an import) in a stage played round by round (a Swiss stage), with
the ids of the groups whose results changed. The office listens to pair the next round once
the last result of a round is in. Other stages send nothing: no listener needs them, and a
result's path keeps its fixed number of queries.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.dispatch import Signal

results_changed = Signal()
"""Sent after the commit; keyword argument ``group_ids`` (a list of group ids)."""


def announce(stage, group_ids: Iterable[int]) -> None:
    """Send :data:`results_changed` for these groups of ``stage`` once the caller's
    transaction commits (a Swiss stage only)."""
    if not stage.is_swiss:
        return
    ids = sorted(set(group_ids))
    if ids:
        transaction.on_commit(lambda: results_changed.send(sender=None, group_ids=ids))
