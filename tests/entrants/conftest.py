"""Fixtures of the entrant tests: a small tournament with its first stage open for
registration, its organizer, someone else, and API and page clients for each."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from apps.entrants.services import import_entrants
from apps.stages.services import create_tournament

# Four entrants: enough to see adds, changes and removals; nothing here draws.
ENTRANTS = (
    "code,name,nation,rating,person,email\n"
    'A1,"Rossi, Anna",ITA,2100,,anna@example.org\n'
    'A2,"Weber, Bernd",GER,1950,,\n'
    'A3,"Smith, Carol",ENG,,P3,carol@example.org\n'
    'A4,"Dupont, Denis",FRA,2300,,\n'
)


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@example.org")


@pytest.fixture
def stranger(db):
    """Signed in, but organizes nothing."""
    return get_user_model().objects.create_user("joe", "joe@example.org")


def api_client(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def org(organizer):
    return api_client(organizer)


@pytest.fixture
def joe(stranger):
    return api_client(stranger)


@pytest.fixture
def anon():
    return api_client()


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def stranger_client(client, stranger):
    client.force_login(stranger)
    return client


@pytest.fixture
def cup(organizer):
    return create_tournament(
        organizer,
        name="Entrant Cup",
        slug="entrant-cup",
        games_per_player=2,
        stages=[{"min_group_size": 2, "separate_nations": False}, {"min_group_size": 2}],
    )


@pytest.fixture
def stage(cup, organizer):
    """The first stage, registration open, with the four entrants of ENTRANTS."""
    stage = cup.first_stage
    import_entrants(organizer, stage, ENTRANTS)
    return stage
