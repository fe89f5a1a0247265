"""Fixtures of the API tests: users, clients, and a stage at each step of its life, all built
through the services (so the data is what the application itself makes)."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament
from config.celery import app as celery_app

ENTRANTS = 300  # three groups of 100 with min_group_size 100: small and fast


@pytest.fixture(autouse=True)
def tasks_in_process():
    """Run Celery tasks in this process even where CELERY_BROKER_URL names a broker (CI)."""
    saved = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = saved


# Users have no password (clients authenticate with force_authenticate): hashing one costs
# a third of a second per user.


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@example.org")


@pytest.fixture
def stranger(db):
    """Signed in, but organizes nothing."""
    return get_user_model().objects.create_user("joe", "joe@example.org")


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("staff", "staff@example.org", is_staff=True)


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def anon():
    return client_for()


@pytest.fixture
def org(organizer):
    return client_for(organizer)


@pytest.fixture
def joe(stranger):
    return client_for(stranger)


@pytest.fixture
def cup(organizer):
    return create_tournament(
        organizer,
        name="Test Cup",
        slug="test-cup",
        games_per_player=10,
        stages=[{"min_group_size": 100}],
    )


@pytest.fixture
def entrants_file():
    return entrants_csv(make_entrants(ENTRANTS, "x"))


@pytest.fixture
def draft_stage(cup, organizer, entrants_file):
    """A stage with its entrants imported, registration open."""
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_file)
    return stage


@pytest.fixture
def drawn_stage(draft_stage, organizer, django_capture_on_commit_callbacks):
    """Drawn with the seed "fixture", not published."""
    stage = close_registration(organizer, draft_stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, stage, "fixture")
    stage.refresh_from_db()
    assert stage.status == stage.Status.DRAWN
    return stage


@pytest.fixture
def published_stage(drawn_stage, organizer):
    return publish_draw(organizer, drawn_stage)
