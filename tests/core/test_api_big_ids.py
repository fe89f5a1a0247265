"""An address whose id is larger than any row can have names nothing: 404, never a server
error (the page cache's lookups ran it through SQLite, which cannot take it: OverflowError,
500, found by tests/fuzz)."""

import pytest

pytestmark = pytest.mark.django_db

HUGE = 2**64 + 1


@pytest.mark.parametrize(
    "address",
    [
        f"/api/groups/{HUGE}/",
        f"/api/groups/{HUGE}/games/",
        f"/api/groups/{HUGE}/standings/",
        f"/api/stages/{HUGE}/",
        f"/api/games/{HUGE}/",
    ],
)
def test_an_id_beyond_any_row_is_not_found(client, address):
    answer = client.get(address)
    assert answer.status_code == 404
    assert answer.json()["code"] == "not_found"
