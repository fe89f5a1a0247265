"""Twenty submissions of the same move at once, on PostgreSQL with threads: exactly one is
stored, the other nineteen are conflicts (the ply they follow is no longer the game's last).
The played game's row is locked by every move (apps/play/services.py)."""

from __future__ import annotations

import pytest

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.play.models import Move
from apps.play.services import Outcome, make_move
from tests.racing import race
from tests.worlds.play import START, build_play_world

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.page_bumps_on_commit,
]

SUBMISSIONS = 20


def test_twenty_parallel_submissions_of_one_move_store_it_once():
    world = build_play_world(None)
    white = world.users["white"]
    outcomes = race(
        *[
            lambda: make_move(actor=white, game_id=world.game.pk, move="e4", after_ply=0, now=START)
            for _ in range(SUBMISSIONS)
        ]
    )
    stored = [o for o in outcomes if isinstance(o, Outcome)]
    conflicts = [o for o in outcomes if isinstance(o, ActionError) and o.code == ErrorCode.CONFLICT]
    assert len(stored) == 1, outcomes
    assert len(conflicts) == SUBMISSIONS - 1, outcomes
    assert list(Move.objects.filter(game_id=world.game.pk).values_list("ply", "san")) == [(1, "e4")]
    assert AuditEvent.objects.filter(action=Action.PLAY_MOVE).count() == 1
    assert world.fresh().ply == 1
