"""Fixtures of the result and standings page/API tests: a published stage of three groups of
100, group 1 directed by ``td``, group 2 by ``other_td``; users have no password (the clients
sign in with force_login / force_authenticate)."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament


def make_user(name: str, **extra):
    return get_user_model().objects.create_user(name, f"{name}@example.org", **extra)


@pytest.fixture
def organizer(db):
    return make_user("org")


@pytest.fixture
def stranger(db):
    return make_user("someone")


@pytest.fixture
def td(db):
    return make_user("td1")


@pytest.fixture
def other_td(db):
    return make_user("td2")


@pytest.fixture
def stage(organizer, td, other_td, django_capture_on_commit_callbacks):
    cup = create_tournament(organizer, name="Results Web Cup", slug="rw-cup", games_per_player=10)
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(300, "results-web")))
    close_registration(organizer, stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, stage, "rw seed")
    with django_capture_on_commit_callbacks(execute=True):
        publish_draw(organizer, stage)  # the groups' first (empty) standings
    Group.objects.filter(stage=stage, number=1).update(td=td)
    Group.objects.filter(stage=stage, number=2).update(td=other_td)
    stage.refresh_from_db()
    return stage


@pytest.fixture
def group(stage):
    return Group.objects.select_related("stage__tournament", "td").get(stage=stage, number=1)


@pytest.fixture
def games(group):
    """Group 1's games in number order."""
    return list(
        Game.objects.filter(group=group).select_related("white", "black").order_by("number")
    )


def api_client(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def web(client):
    """``web(user)``: the Django test client signed in as ``user`` (None: anonymous)."""

    def signed_in(user=None):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client

    return signed_in
