"""Nothing lands in a closed group (issue 26, item 1), on PostgreSQL with threads.

Result entry read the group's closed state without locking the group, so a correction that
had locked its game before "close the group" committed was saved after the close. Every
write into a group now locks the group row first (the lock order of ``apps/core/locking.py``),
as closing does: a correction either commits before the close or is refused after it.
"""

from __future__ import annotations

import pytest

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group
from apps.results.closing import close_group, reopen_group
from apps.results.imports import import_results
from apps.results.services import enter_result, withdraw_entrant
from tests.racing import race

# Page versions are bumped after the commit, as in production (the suite bumps them at once,
# inside the transaction, which would add a lock no production transaction takes).
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.page_bumps_on_commit,
]

CORRECTIONS = 20


@pytest.fixture
def finished_group(published_stage):
    """Group 1 with every game finished (1-0), ready to close."""
    group = Group.objects.get(stage=published_stage, number=1)
    Game.objects.filter(group=group).update(result="1-0", version=1)
    return group


def _close_event(group: Group) -> int:
    return (
        AuditEvent.objects.filter(group_id=group.pk, action=Action.GROUP_CLOSED)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )


def test_twenty_corrections_racing_a_close_never_land_after_it(finished_group, organizer):
    group = finished_group
    games = list(Game.objects.filter(group=group).order_by("number")[:CORRECTIONS])
    landed_after = 0
    for attempt in range(3):
        if attempt:
            reopen_group(organizer, group, "another race")
        now = {pk: (v, r) for pk, v, r in Game.objects.values_list("pk", "version", "result")}
        versions = {pk: v for pk, (v, _r) in now.items()}
        corrections = [  # each one really changes its game
            lambda g=g, r=("0-1" if now[g.pk][1] == "1-0" else "1-0"), v=versions[g.pk]: (
                enter_result(organizer, g, r, expected_version=v, reason="race")
            )
            for g in games
        ]
        half = len(corrections) // 2
        outcomes = race(
            *corrections[:half], lambda: close_group(organizer, group), *corrections[half:]
        )
        failures = [o for o in outcomes if isinstance(o, Exception)]
        assert all(
            isinstance(o, ActionError) and o.code == ErrorCode.WRONG_STATUS for o in failures
        ), failures
        closed = _close_event(group)
        assert closed is not None and Group.objects.get(pk=group.pk).is_closed
        saved = [o for o in outcomes if isinstance(o, Game)]
        after = AuditEvent.objects.filter(
            group_id=group.pk, action=Action.RESULT_CORRECTED, pk__gt=closed
        ).count()
        landed_after += after
        # Every correction either committed before the close or was refused after it.
        after_versions = dict(Game.objects.filter(group=group).values_list("pk", "version"))
        changed = sum(1 for g in games if after_versions[g.pk] > versions[g.pk])
        assert changed == len(saved)
    assert landed_after == 0


def test_a_withdrawal_or_an_import_racing_a_close_waits_or_is_refused(finished_group, organizer):
    group = finished_group
    Game.objects.filter(group=group, number__in=[1, 2]).update(result="", version=0)
    first, second = Game.objects.filter(group=group).order_by("number")[:2]
    entry = StageEntry.objects.get(stage=group.stage, entrant=first.white)
    text = f"white,black,result\n{second.white.code},{second.black.code},1/2-1/2\n"
    outcomes = race(
        lambda: withdraw_entrant(organizer, entry, "moved"),
        lambda: import_results(organizer, text=text, group=group),
        lambda: close_group(organizer, group),
    )
    group.refresh_from_db()
    if group.is_closed:
        closed = _close_event(group)
        assert (
            not AuditEvent.objects.filter(group_id=group.pk, pk__gt=closed)
            .exclude(action=Action.GROUP_CLOSED)
            .exists()
        ), outcomes
        assert not Game.objects.filter(group=group, result="").exists()
    for outcome in outcomes:
        assert not isinstance(outcome, Exception) or (
            isinstance(outcome, ActionError)
            and outcome.code in (ErrorCode.WRONG_STATUS, ErrorCode.BAD_ROWS)
        ), outcomes
