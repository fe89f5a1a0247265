import pytest
from django.contrib.auth import get_user_model

from apps.entrants.models import Entrant
from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament
from tests.worlds.published import build_world, make_user


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@example.org", "pw-org-123")


@pytest.fixture
def published_stage(organizer):
    """A published preliminary of 300 entrants in 3 groups of 100 (10 games)."""
    cup = create_tournament(organizer, name="Results Cup", slug="results-cup")
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(300, "results")))
    close_registration(organizer, stage)
    start_draw(organizer, stage, "seed")
    publish_draw(organizer, stage)
    stage.refresh_from_db()
    return stage


# The accounts world (players with accounts, TDs, organizers): reported results.


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


@pytest.fixture
def game(world):
    return world.player_game


@pytest.fixture
def opponent(world, game):
    """The player's opponent in ``game``, with an account that claimed the entry."""
    user = make_user("opponent")
    other = game.black_id if game.white_id == world.player_entrant.pk else game.white_id
    Entrant.objects.filter(pk=other).update(user=user)
    return user


@pytest.fixture
def as_user(client):
    def signed_in(user):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client

    return signed_in
