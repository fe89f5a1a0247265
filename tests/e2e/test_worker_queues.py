"""Format lab runs do not hold up interactive work (issue 26, item 7), with real workers on
PostgreSQL and Redis: a ``lab`` worker busy with a long format lab run, and a default worker
(``-Q celery``), as docker-compose.yml runs them. A result's standings recompute is done
within seconds while the run simulates. Before the lab queue, the run's parts went to the
one queue and a recompute waited behind a part (up to a minute each): the default worker
here, with one process, would run the lab's part first."""

from __future__ import annotations

import time

import pytest

from apps.entrants.services import import_entrants
from apps.office.lab import runs
from apps.office.models import LabRun
from apps.results.services import enter_result
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.healing import open_games, up_to_date
from tests.worlds.worker import wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

LAB = "apps.office.tasks.run_lab"
RECOMPUTE = "apps.standings.tasks.recompute_group_standings"
# A recompute of a 30-player group takes well under a second; a lab part up to 50 s.
RECOMPUTE_WITHIN = 10

CANDIDATES = [
    {"format": "swiss", "rounds": 9, "acceleration": "baku"},
    {"format": "swiss", "rounds": 7, "acceleration": "none"},
]


@pytest.fixture
def long_lab_run(organizer) -> LabRun:  # noqa: F811
    """A run of 2,000 simulated Swiss tournaments of 400 players (minutes of work), queued."""
    cup = create_tournament(organizer, name="Lab Open", slug="lab-open", games_per_player=10)
    stage = cup.first_stage
    assert stage.status == Stage.Status.DRAFT
    import_entrants(organizer, stage, entrants_csv(make_entrants(400, "lab-open")))
    return runs.start_lab_run(organizer, stage, CANDIDATES, 2000, "queues")


def test_a_recompute_does_not_wait_behind_a_lab_run(
    organizer,  # noqa: F811
    group,  # noqa: F811
    broker,  # noqa: F811
    start_worker,  # noqa: F811
    long_lab_run,
):
    lab = start_worker(queues="lab", concurrency=1)
    default = start_worker(queues="celery", concurrency=1)

    def explain() -> str:
        return f"{lab.output()}\n{default.output()}"

    wait_until(
        "the lab worker runs the lab run",
        lambda: any(t["name"] == LAB for t in lab.active()),
        explain=explain,
    )
    game = open_games(group)[0]
    started = time.monotonic()
    enter_result(organizer, game, "1-0", expected_version=game.version)  # queues the recompute
    wait_until(
        "the default worker recomputes the group",
        lambda: up_to_date(group),
        timeout=RECOMPUTE_WITHIN,
        explain=explain,
    )
    took = time.monotonic() - started
    assert default.executed().get(RECOMPUTE, 0) >= 1
    assert LAB not in default.executed()  # the default worker never took a lab part
    long_lab_run.refresh_from_db()
    assert long_lab_run.status == LabRun.Status.RUNNING  # the run was simulating meanwhile
    assert any(t["name"] == LAB for t in lab.active())
    print(f"recompute done {took:.2f} s after the result while the lab run simulated")
    lab.kill()  # the run need not finish here
