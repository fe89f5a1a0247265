"""Fixtures of the page tests: users, a cup, and its stage at each step of its life.

Celery runs in-process (tests/conftest.py), and the draw's ``on_commit`` hooks run when the
action's block commits.
"""

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament

PASSWORD = "pw-web-123"


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@example.org", PASSWORD)


@pytest.fixture
def stranger(db):
    return get_user_model().objects.create_user("someone", "someone@example.org", PASSWORD)


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def cup(organizer):
    return create_tournament(organizer, name="Web Cup", slug="web-cup", games_per_player=10)


@pytest.fixture
def csv_300():
    return entrants_csv(make_entrants(300, "web"))


@pytest.fixture
def registered_stage(cup, organizer, csv_300):
    stage = cup.first_stage
    import_entrants(organizer, stage, csv_300)
    return stage


@pytest.fixture
def drawn_stage(registered_stage, organizer, django_capture_on_commit_callbacks):
    """300 entrants drawn into 3 groups of 100 with the seed "web seed", not published."""
    close_registration(organizer, registered_stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, registered_stage, "web seed")
    registered_stage.refresh_from_db()
    return registered_stage


@pytest.fixture
def published_stage(drawn_stage, organizer):
    publish_draw(organizer, drawn_stage)
    drawn_stage.refresh_from_db()
    return drawn_stage
