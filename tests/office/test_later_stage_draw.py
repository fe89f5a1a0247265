"""A second stage drawn by the job: what its entrants did in the first stage reaches the engine."""

import pytest

from apps.entrants.models import Entrant, StageEntry
from apps.entrants.services import close_registration, engine_entrants
from apps.groups.models import Game
from apps.office.draw import draw_settings, earlier_groups
from apps.office.services import start_draw
from apps.silli.draw import draw_stage
from apps.stages.models import DrawJob, Stage
from tests.worlds.worker import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.worker import assert_stage_holds, closed_stage

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_semifinal_is_drawn_with_the_preliminary_pairs_kept_apart(organizer):
    preliminary = closed_stage(organizer, 1_000)
    start_draw(organizer, preliminary, "preliminary seed")
    semifinal = Stage.objects.create(
        tournament=preliminary.tournament, order=2, kind=Stage.Kind.SEMIFINAL
    )
    # Every third entrant: codes run nation by nation, so this keeps the nations' mix.
    qualified = list(Entrant.objects.filter(tournament=preliminary.tournament).order_by("code"))[
        ::3
    ]
    StageEntry.objects.bulk_create(
        StageEntry(stage=semifinal, entrant=e, source=StageEntry.Source.QUALIFIED)
        for e in qualified
    )
    semifinal = close_registration(organizer, semifinal)

    job = start_draw(organizer, semifinal, "semifinal seed")

    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    codes = {e.code for e in qualified}
    met = [
        (w, b)
        for w, b in Game.objects.filter(group__stage=preliminary).values_list(
            "white__code", "black__code"
        )
        if w in codes and b in codes
    ]
    assert met
    expected = draw_stage(
        engine_entrants(semifinal),
        draw_settings(semifinal),
        "semifinal seed",
        met,
        earlier_groups(semifinal),
    )
    assert_stage_holds(semifinal, expected)
    pairs = Game.objects.filter(group__stage=semifinal).values_list("white__code", "black__code")
    assert not {frozenset(p) for p in pairs} & {frozenset(p) for p in met}
