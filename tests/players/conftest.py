"""Fixtures of the players tests: the small published world (tests/worlds/published.py) with
its entries tied to their people, the way claims tie them (the world links its two players'
accounts by hand)."""

import pytest

from apps.entrants.services import link_tournament_people
from tests.worlds.published import build_world


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
