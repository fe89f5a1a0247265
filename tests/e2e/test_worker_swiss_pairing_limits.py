"""A Swiss pairing stopped by its time limit in a real worker (issue 26, item 2), on
PostgreSQL and Redis: the failure is recorded with its reason, the stage is not left locked
(the pairing's transaction rolled back with its row lock), and asking again pairs the round.
The limits are shortened for one task by the sending options (``soft_time_limit``,
``time_limit``), so that a round of 300 players, which takes the engine about a second,
passes them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from apps.groups.models import Game
from apps.office.swiss.state import swiss_state
from apps.office.swiss.tasks import pair_swiss_round
from apps.stages.models import Stage
from tests.worlds.worker import broker, start_worker, swiss_round_one_played, wait_until  # noqa: F401 (fixtures)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

PLAYERS = 300


@pytest.fixture
def organizer(transactional_db):
    return get_user_model().objects.create_user("swiss-limits", "org@example.org")


@pytest.fixture
def round_one_played(organizer) -> Stage:
    """A Swiss stage of 300 players, 7 rounds, published; every game of round 1 won by
    White (in this process, before the worker starts)."""
    stage = swiss_round_one_played(organizer, "Limits Open", PLAYERS, "limits")
    state = swiss_state(stage)
    assert state.paired == 1 and state.can_pair_next
    return stage


# (The hard limit's path, the worker calling the task's on_failure with TimeLimitExceeded, is
# checked in-process: tests/office/test_swiss_pairing_failures.py. A hard limit shortened for
# one call, below the task's soft one, was not enforced by the prefork pool here.)
def test_a_pairing_past_its_time_limit_is_recorded_and_the_round_paired_when_asked_again(
    organizer,
    round_one_played,
    broker,  # noqa: F811
    start_worker,  # noqa: F811
):
    stage = round_one_played
    worker = start_worker(queues="celery")
    pair_swiss_round.apply_async((stage.pk, 2, organizer.pk), soft_time_limit=0.05, time_limit=30)

    def failed() -> str:
        return swiss_state(Stage.objects.get(pk=stage.pk)).failure

    failure = wait_until("the failure is recorded", failed, explain=worker.output)
    assert "Round 2 could not be paired within 15 minutes" in failure
    state = swiss_state(Stage.objects.get(pk=stage.pk))
    assert state.paired == 1 and state.can_pair_next
    assert not Game.objects.filter(group__stage=stage, round=2).exists()

    pair_swiss_round.delay(stage.pk, 2, organizer.pk)  # asked again, with its real limits

    def paired() -> bool:
        return swiss_state(Stage.objects.get(pk=stage.pk)).paired == 2

    wait_until("round 2 is paired", paired, explain=worker.output)
    assert swiss_state(Stage.objects.get(pk=stage.pk)).failure == ""
    assert Game.objects.filter(group__stage=stage, round=2).count() == PLAYERS // 2
