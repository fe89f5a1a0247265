"""One lock order (``apps.core.locking``): a Swiss stage's next round, a late entrant, the
round's last result (which pairs the next round after its commit), corrections and closing
the group, all at once on PostgreSQL, end in results or refusals (ActionError), never in a
deadlock (issue 26, item 4).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from apps.core.errors import ActionError
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game
from apps.office.swiss.late import add_late_entrant
from apps.office.swiss.pairing import pair_next_round, start_next_round
from apps.results.closing import close_group
from apps.results.services import enter_result
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from tests.racing import race

from .test_swiss import drawn_and_published

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.page_bumps_on_commit,
]


def swiss(organizer, capture, slug: str) -> Stage:
    cup = create_tournament(
        organizer,
        name=f"Lock {slug}",
        slug=slug,
        stages=[{"kind": Stage.Kind.FINAL, "format": Stage.Format.SWISS, "swiss_rounds": 5}],
    )
    stage = cup.stages.get()
    import_entrants(organizer, stage, entrants_csv(make_entrants(16, slug)))
    close_registration(organizer, stage)
    return drawn_and_published(organizer, stage, capture)


@pytest.mark.parametrize("attempt", range(3))
def test_the_next_round_a_late_entrant_and_results_never_deadlock(
    django_capture_on_commit_callbacks, attempt
):
    organizer = get_user_model().objects.create_user(f"lock-org-{attempt}")
    stage = swiss(organizer, django_capture_on_commit_callbacks, f"lock-{attempt}")
    games = list(Game.objects.filter(group__stage=stage, round=1).order_by("number"))
    last, played = games[0], games[1:]
    for game in played:
        enter_result(organizer, game, "1-0", expected_version=game.version)
    played = [Game.objects.get(pk=g.pk) for g in played]
    outcomes = race(
        lambda: enter_result(organizer, last, "1/2-1/2", expected_version=last.version),
        lambda: pair_next_round(organizer, stage, 2),
        lambda: start_next_round(organizer, stage),
        lambda: add_late_entrant(organizer, stage, name="Late, Lara", nation="NOR", rating=2400),
        lambda: close_group(organizer, stage.groups.get()),
        *[
            lambda g=g: enter_result(
                organizer, g, "0-1", expected_version=g.version, reason="checked again"
            )
            for g in played[:4]
        ],
    )
    unexpected = [
        o for o in outcomes if isinstance(o, Exception) and not isinstance(o, ActionError)
    ]
    assert unexpected == []
    rounds = set(Game.objects.filter(group__stage=stage).values_list("round", flat=True))
    assert rounds <= {1, 2}
