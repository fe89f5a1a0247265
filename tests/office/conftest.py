"""Fixtures of the season-setup tests: a user allowed to create tournaments, an organizer, a
stranger, and a cup whose preliminary is open, closed for registration, drawn or published.

Everything is built through the services. The drawn stage is a small round robin (12 entrants,
one group), which draws in a blink.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament


def user(name: str, **extra):
    return get_user_model().objects.create_user(name, f"{name}@example.org", **extra)


@pytest.fixture
def creator(db):
    """May create tournaments: holds the model permission stages.add_tournament."""
    account = user("creator")
    account.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    return get_user_model().objects.get(pk=account.pk)  # a fresh permission cache


@pytest.fixture
def organizer(db):
    """Organizes the cup, but may not create tournaments."""
    return user("org")


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    """Runs (or collects) the on-commit callbacks of a block: ``with capture(execute=True):``."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def stranger(db):
    return user("joe")


@pytest.fixture
def staff(db):
    return user("staff", is_staff=True)


def api_client(account=None) -> APIClient:
    client = APIClient()
    if account is not None:
        client.force_authenticate(account)
    return client


@pytest.fixture
def api_creator(creator):
    return api_client(creator)


@pytest.fixture
def api_org(organizer):
    return api_client(organizer)


@pytest.fixture
def api_joe(stranger):
    return api_client(stranger)


@pytest.fixture
def api_anon():
    return api_client()


@pytest.fixture
def cup(organizer):
    """A cup of 10 games per player: preliminary, semifinal, final."""
    return create_tournament(
        organizer,
        name="Setup Cup",
        slug="setup-cup",
        games_per_player=10,
        stages=[
            {"kind": Stage.Kind.PRELIMINARY},
            {"kind": Stage.Kind.SEMIFINAL},
            {"kind": Stage.Kind.FINAL},
        ],
    )


@pytest.fixture
def preliminary(cup):
    return cup.stages.get(order=1)


@pytest.fixture
def registered(preliminary, organizer):
    """The preliminary as a one-group round robin of 12, its entrants imported."""
    preliminary.format = Stage.Format.ROUND_ROBIN
    preliminary.min_group_size = 12
    preliminary.save()
    import_entrants(organizer, preliminary, entrants_csv(make_entrants(12, "setup")))
    return preliminary


@pytest.fixture
def closed(registered, organizer):
    """Registration closed."""
    return close_registration(organizer, registered)


@pytest.fixture
def drawn(closed, organizer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, closed, "setup seed")
    closed.refresh_from_db()
    assert closed.status == Stage.Status.DRAWN
    return closed


@pytest.fixture
def published(drawn, organizer):
    return publish_draw(organizer, drawn)
