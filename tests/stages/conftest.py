import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@example.org", "pw-org-123")


@pytest.fixture
def cup(organizer):
    return create_tournament(organizer, name="Test Cup", slug="test-cup", games_per_player=10)


@pytest.fixture
def csv_3099():
    return entrants_csv(make_entrants(3099, "cup"))


@pytest.fixture
def closed_stage(organizer, cup):
    """The cup's preliminary with 300 entrants and registration closed."""
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(300, "jobs")))
    return close_registration(organizer, stage)
