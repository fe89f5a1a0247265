"""A small three-stage Cup: a Silli preliminary of 300 (3 groups of 100) played to the end,
a round-robin semifinal (groups of 11) and a round-robin final."""

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.results.simulate import simulate_results
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament

STAGES = [
    {"kind": Stage.Kind.PRELIMINARY},
    {"kind": Stage.Kind.SEMIFINAL, "format": Stage.Format.ROUND_ROBIN, "min_group_size": 11},
    {
        "kind": Stage.Kind.FINAL,
        "format": Stage.Format.ROUND_ROBIN,
        "min_group_size": 6,
        "separate_nations": False,
    },
]


@pytest.fixture
def organizer(transactional_db):
    return get_user_model().objects.create_user("org", "org@example.org", "pw-org-123")


def publish(organizer, stage: Stage, seed: str) -> Stage:
    close_registration(organizer, stage) if stage.status == Stage.Status.DRAFT else None
    start_draw(organizer, stage, seed)
    publish_draw(organizer, stage)
    stage.refresh_from_db()
    return stage


@pytest.fixture
def played(organizer) -> Stage:
    """The preliminary, published, every game finished, a few entrants withdrawn."""
    cup = create_tournament(organizer, name="Flow Cup", slug="flow-cup", stages=STAGES)
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(300, "flow")))
    stage = publish(organizer, stage, "preliminary seed")
    simulate_results(organizer, stage, share=1.0, withdrawals=0.02)
    return stage
