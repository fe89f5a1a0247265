"""An id in a URL is at most 18 digits (apps/core/converters.py): a longer one is an unknown
address (404), never a number the database cannot hold (SQLite's OverflowError, a 500)."""

import pytest
from django.urls import Resolver404, resolve

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


def test_an_id_of_18_digits_is_routed_and_one_of_19_is_not():
    assert resolve("/api/groups/999999999999999999/games/").url_name == "api-group-games"
    assert resolve("/api/groups/9999999999999999999/games/").url_name == "api-not-found"
    assert resolve("/t/some-cup/s/999999999999999999/").kwargs["order"] == 999999999999999999
    with pytest.raises(Resolver404):
        resolve("/t/some-cup/s/9999999999999999999/")
