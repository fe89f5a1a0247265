"""An id in a URL is at most 18 digits (apps/core/converters.py): a longer one is an unknown
address (404), never a number the database cannot hold (SQLite's OverflowError, a 500)."""

import pytest

pytestmark = pytest.mark.django_db

TOO_LONG = "8008962745658717108118"


@pytest.mark.parametrize(
    "path",
    [
        f"/api/groups/{TOO_LONG}/games/",
        f"/api/groups/{TOO_LONG}/",
        f"/api/stages/{TOO_LONG}/",
        f"/t/some-cup/s/{TOO_LONG}/",
        f"/t/some-cup/s/1/g/{TOO_LONG}/",
    ],
)
def test_an_id_too_long_for_the_database_is_not_found(client, path):
    assert client.get(path).status_code == 404


def test_the_largest_id_a_database_holds_is_still_an_id(client):
    assert client.get("/api/groups/999999999999999999/").status_code == 404
