"""A TD file (group,email) with a NUL character is refused by row, never a server error
(issue 26, item 6; run on PostgreSQL too)."""

from __future__ import annotations

import pytest

from tests.worlds.published import build_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


@pytest.mark.parametrize(
    "text",
    ["group,email\n1,td\x00@example.org\n", "group,email\n1\x00,td@example.org\n"],
    ids=["email", "group"],
)
def test_a_nul_in_the_td_file_is_a_bad_row(world, text):
    client = api_client(world.users["organizer"])
    response = client.post(f"/api/stages/{world.stage.pk}/tds/", text, content_type="text/csv")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["details"][0]["line"] == 2
