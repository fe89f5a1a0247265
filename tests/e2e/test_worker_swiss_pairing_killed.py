"""A worker killed in the middle of a Swiss round's pairing, on PostgreSQL and Redis (issue
26, item 2's check: "the round is paired after the restart, or the failure is shown with its
reason — never a silent lock").

The pairing runs in one transaction holding the stage's row lock. To kill the worker inside
it deterministically, the test holds the group's row lock from another connection: the
pairing has locked the tournament and the stage and waits for the group when the worker is
SIGKILLed (a 300-player field, as in test_worker_swiss_pairing_limits.py: the transaction,
the lock and the redelivery are the same at 1,000 players, only the engine's time differs).
Then PostgreSQL ends the dead worker's transaction: the stage is not left locked, nothing of
round 2 is written, and the organizer may ask again. The pairing's message was taken but
never acknowledged (``acks_late``): Redis hands it out again after the visibility timeout
(20 minutes, settings.py), which the test stands for by ageing the message's delivery time,
and the restarted worker pairs round 2. Meanwhile the stage's state says round 2 was asked
for and is not paired yet (``pairing``), instead of nothing.
"""

from __future__ import annotations

import psycopg
import pytest
import redis
from django.contrib.auth import get_user_model

from apps.groups.models import Game, Group
from apps.office.swiss.pairing import start_next_round
from apps.office.swiss.state import swiss_state
from apps.stages.models import Stage
from tests.worlds.worker import (  # noqa: F401
    broker,
    database_url,
    start_worker,
    swiss_round_one_played,
    wait_until,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

PLAYERS = 300
PAIR = "apps.office.tasks.pair_swiss_round"


@pytest.fixture
def organizer(transactional_db):
    return get_user_model().objects.create_user("swiss-killed", "org@example.org")


@pytest.fixture
def round_one_played(organizer) -> Stage:
    stage = swiss_round_one_played(organizer, "Killed Open", PLAYERS, "killed")
    assert swiss_state(stage).can_pair_next
    return stage


def stage_lockable(stage: Stage) -> bool:
    """Whether another connection gets the stage's row lock at once (NOWAIT)."""
    with psycopg.connect(database_url()) as other:
        try:
            other.execute(
                f'SELECT 1 FROM "{Stage._meta.db_table}" WHERE id = %s FOR NO KEY UPDATE NOWAIT',
                [stage.pk],
            )
        except psycopg.errors.LockNotAvailable:
            return False
        finally:
            other.rollback()
    return True


def test_a_worker_killed_mid_pairing_leaves_no_lock_and_the_round_is_paired_after_restart(
    organizer,
    round_one_played,
    broker,  # noqa: F811
    start_worker,  # noqa: F811
):
    stage = round_one_played
    group = Group.objects.get(stage=stage)
    worker = start_worker(queues="celery")
    holder = psycopg.connect(database_url())
    holder.execute(
        f'SELECT 1 FROM "{Group._meta.db_table}" WHERE id = %s FOR NO KEY UPDATE', [group.pk]
    )
    try:
        assert start_next_round(organizer, stage) == 2

        def pairing_waits() -> bool:
            active = [t for t in worker.active() if t["name"] == PAIR]
            return bool(active) and not stage_lockable(stage)

        wait_until("the pairing holds the stage", pairing_waits, explain=worker.output)
        worker.kill()
    finally:
        holder.rollback()  # the dead worker's statement ends, and PostgreSQL its transaction
        holder.close()

    wait_until("the stage's row lock is let go", lambda: stage_lockable(stage))
    state = swiss_state(Stage.objects.get(pk=stage.pk))
    assert state.paired == 1 and state.can_pair_next  # nothing written, nothing locked
    assert not Game.objects.filter(group__stage=stage, round=2).exists()
    assert state.pairing == 2  # asked for, not paired, no failure: the page says so

    # Twenty minutes later Redis hands the unacknowledged message out again: age it.
    client = redis.Redis.from_url(broker)
    unacked = client.zrange("unacked_index", 0, -1)
    assert unacked, "the pairing's message is not waiting to be handed out again"
    client.zadd("unacked_index", dict.fromkeys(unacked, 0))
    worker = start_worker(queues="celery")

    def paired() -> bool:
        return swiss_state(Stage.objects.get(pk=stage.pk)).paired == 2

    wait_until("round 2 is paired after the restart", paired, explain=worker.output)
    assert Game.objects.filter(group__stage=stage, round=2).count() == PLAYERS // 2
    state = swiss_state(Stage.objects.get(pk=stage.pk))
    assert state.failure == "" and state.pairing is None
