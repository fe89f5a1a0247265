"""Actions run at the same moment, each in a thread of its own with its own database
connection (the race tests on PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

WAIT = 120  # seconds a racing action may take before the test looks at what it has


def race(*actions: Callable[[], object]) -> list[object]:
    """Run ``actions`` at once (a barrier lets them go together); return each one's value, or
    the exception it raised (an ActionError, a deadlock, any failure), for the test to look at."""
    barrier = threading.Barrier(len(actions))
    outcomes: list[object] = [None] * len(actions)

    def run(i: int, action: Callable[[], object]) -> None:
        try:
            barrier.wait()
            outcomes[i] = action()
        except Exception as exc:  # noqa: BLE001 - every outcome is looked at by the test
            outcomes[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    return outcomes
