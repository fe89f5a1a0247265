"""Fixtures of the players tests.

Registration: a tournament whose first stage takes registrations from players (a rating band
on a named list, two federations, unrated allowed or not, a field of three), its organizer and
players. Profiles: the small published world (tests/worlds/published.py) with its entries tied
to their people, the way claims tie them (the world links its two players' accounts by hand)."""

import pytest
from django.contrib.auth import get_user_model

from apps.entrants.services import link_tournament_people
from apps.stages.services import create_tournament, update_stage
from tests.worlds.published import build_world

PASSWORD = "pw-reg-123"


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("org", "org@people.test", PASSWORD)


@pytest.fixture
def make_player(db):
    def make(username: str):
        return get_user_model().objects.create_user(username, f"{username}@people.test", PASSWORD)

    return make


@pytest.fixture
def open_stage(organizer):
    """The first stage of "Reg Cup", open to players: ratings 1900–2099 on "ICCF list
    2026/4", federations ITA and SMR, unrated players refused, at most 3 players."""
    cup = create_tournament(organizer, name="Reg Cup", slug="reg-cup")
    return update_stage(
        organizer,
        cup.first_stage,
        open_registration=True,
        rating_min=1900,
        rating_max=2099,
        rating_list="ICCF list 2026/4",
        federations_allowed="ITA, SMR",
        unrated_allowed=False,
        max_field=3,
    )


@pytest.fixture
def details():
    """A good request's details for player ``n``."""

    def make(n: int, **changes):
        return {
            "name": f"Player {n}",
            "federation": "ITA",
            "rating_list_id": f"{100000 + n}",
            "rating": 2000,
            "email": f"p{n}@people.test",
            **changes,
        }

    return make


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    world = build_world(django_capture_on_commit_callbacks)
    link_tournament_people(world.tournament, actor=None)
    for entrant in (world.player_entrant, world.rival_entrant):
        entrant.refresh_from_db()
    return world


@pytest.fixture
def as_role(client, world):
    """``as_role(role)``: the test client signed in as that role's user (anonymous: none)."""

    def signed_in(role: str):
        client.logout()
        user = world.users[role]
        if user is not None:
            client.force_login(user)
        return client

    return signed_in
