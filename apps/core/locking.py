"""Row locks: the one order every action takes them in, and what a lock conflict answers.

**The lock order.** An action that locks several rows (``select_for_update``, or an
``UPDATE`` that locks a row until the commit) takes them from the top of the tournament down,
never back up:

1. the **tournament** (``apps.stages.services.locked`` locks a stage's tournament first, then
   the stage, in two statements — never both rows in one joined statement, whose order is the
   query plan's);
2. the **stage** (``apps.stages.services.locked``): drawing, publishing, closing, a Swiss
   round, a late entrant, registration, qualification;
3. the **group** (``apps.results.services.locked_group``): every write into a group — a
   result, a correction, a report that stands, a withdrawal's forfeits, an import, a Swiss
   round's games, a late entrant's seat — locks its group before anything in it, as closing
   and reopening the group do; so nothing lands in a closed group, and the standings mark
   written with the change (the group row's mirror) is the caller's lock already;
4. inside the group: stage entries and entrants, then **games** (in id order when several),
   then a game's **reports**;
5. the derived data's marks (``apps.core.freshness``: standings, rankings), written last.

Rows are locked ``FOR NO KEY UPDATE`` (``select_for_update(no_key=True)``): as exclusive
between writers as ``FOR UPDATE``, but not against the ``FOR KEY SHARE`` lock a foreign-key
check takes at commit — with plain ``FOR UPDATE`` on the stage, a result's commit (its audit
event and marks point at the stage) waited for a pairing holding the stage while the pairing
waited for the result's group: a deadlock. No action changes a locked row's key.

Rows of one level are locked in id order. Several groups (a stage's import) are locked
before any of their games. Job rows (``apps.core.jobs``) stand outside the order: each is
locked by its own runner, which no request waits for.

**Rebuild locks** (PostgreSQL advisory locks, ``apps.core.freshness``): rebuilds of derived
data take them, never a change, so a change never waits for one; each is taken by a
statement of its own before any row lock, and held to the end of the transaction.

* The **stage's standings lock** (``apps.standings.freshness.STAGE_STANDINGS_LOCK``, with the
  stage's id), then a **group's recompute lock** (``GROUP_STANDINGS``, the group's id): one
  group's recompute holds the first shared and the second exclusive; the stage's pass
  (``apps.standings.groups.recompute_stage``, every group of the stage at once) the first
  exclusive, and no group lock. So a pass and a group's recompute (or two passes) take turns,
  two recomputes of different groups do not wait for each other, and nothing takes a group's
  lock without its stage's. The pass then locks its groups' rows in id order, and their marks
  in id order, as a change into each group would.
* A **stage's ranking rebuild lock** (``STAGE_RANKING``): alone.

**Conflicts that still happen** (a deadlock PostgreSQL breaks by cancelling one of the
transactions, a lock or statement timeout, SQLite's "database is locked" after its wait) are
not bugs of the request: nothing was changed, and the same request succeeds a moment later.
:func:`lock_conflict` recognises them; the API answers them 503 (``apps.core.api``'s
exception handler) and pages answer a 503 page (``apps.core.middleware``), each with a
sentence and ``Retry-After``, never a 500.
"""

from __future__ import annotations

from django.db import OperationalError
from django.utils.translation import gettext as _

# Seconds a client is told to wait before sending the request again.
RETRY_AFTER_SECONDS = 2

# PostgreSQL's SQLSTATEs for "try again": deadlock_detected, lock_not_available,
# serialization_failure, query_canceled (statement_timeout / lock_timeout).
RETRYABLE_SQLSTATES = frozenset({"40P01", "55P03", "40001", "57014"})


def lock_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` is a lock conflict the same request would get past when sent again."""
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None)
    if sqlstate is not None:
        return sqlstate in RETRYABLE_SQLSTATES
    text = str(exc).lower()
    return "database is locked" in text or "database table is locked" in text


def lock_conflict_message() -> str:
    return _(
        "Someone else was changing the same data at this moment and the server could not do "
        "both at once; nothing was changed. Send the request again in a few seconds."
    )
