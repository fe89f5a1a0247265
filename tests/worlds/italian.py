"""A small published stage for the language tests: 60 entrants in two groups of 30, six games
per player, one result entered (so standings, crosstable and ranking have rows)."""

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.results.services import enter_result
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament

PASSWORD = "pw-i18n-123"


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("i18n-org", "org@example.org", PASSWORD)


@pytest.fixture
def published_stage(organizer, django_capture_on_commit_callbacks):
    cup = create_tournament(
        organizer,
        name="Coppa Lingue",
        slug="coppa-lingue",
        games_per_player=6,
        stages=[{"min_group_size": 30}],
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(60, "i18n")))
    close_registration(organizer, stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, stage, "seme delle lingue")
    stage.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        publish_draw(organizer, stage)
    game = Game.objects.filter(group__stage=stage, group__number=1).order_by("number").first()
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(organizer, game, "1-0", expected_version=game.version)
    stage.refresh_from_db()
    return stage


@pytest.fixture
def group(published_stage):
    return Group.objects.get(stage=published_stage, number=1)
