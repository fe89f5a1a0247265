"""Hostile input is refused with 400 and a sentence, never a server error (issue 26, item 6).

NUL characters are what PostgreSQL's text refuses (psycopg raises ValueError before the query
leaves), so these tests matter most on PostgreSQL: run them with DATABASE_URL=postgres://...
as well (they pass on both). A JSON body nested deeper than the parser's recursion limit made
``json.loads`` raise RecursionError, which DRF's parser let through as a 500.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from apps.core.parsers import JSON_MAX_DEPTH
from apps.stages.services import create_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("hostile-org", "org@example.org", "pw-123-org")


@pytest.fixture
def cup(organizer):
    return create_tournament(organizer, name="Hostile Cup", slug="hostile-cup")


def assert_api_refusal(response, *words: str) -> None:
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "invalid_input"
    assert body["message"].endswith(".")
    for word in words:
        assert word in body["message"]


# ---------------------------------------------------------------------------
# NUL in the address: the path or the query string
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "/api/tournaments/%00/",
        "/api/tournaments/hostile-cup%00/",
        "/api/tournaments/?search=%00",
        "/api/tournaments/?page=1%00",
        "/api/tournaments/hostile-cup/?x%00=1",
    ],
)
def test_a_nul_in_an_api_address_is_400_with_a_sentence(cup, address):
    assert_api_refusal(APIClient().get(address), "NUL")


@pytest.mark.parametrize(
    "address",
    [
        "/t/hostile-cup/find/?q=%00",
        "/t/hostile-cup/find/?q=ann%00",
        "/t/hostile-cup%00/find/?q=ann",
        "/t/hostile-cup/find/?q=ann&page=%00",
    ],
)
def test_a_nul_in_a_page_address_is_a_400_page_with_a_sentence(client, cup, address):
    response = client.get(address)
    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_a_nul_in_a_signed_in_organizers_address_is_400_too(client, cup, organizer):
    client.force_login(organizer)
    assert client.get("/t/hostile-cup/find/?q=%00").status_code == 400
    api = APIClient()
    api.force_authenticate(organizer)
    assert_api_refusal(api.patch("/api/tournaments/%00/", {"name": "x"}, format="json"), "NUL")


def test_addresses_without_nul_still_answer(client, cup):
    assert client.get("/t/hostile-cup/find/?q=ann").status_code == 200
    assert APIClient().get("/api/tournaments/hostile-cup/").status_code == 200
    assert APIClient().get("/api/tournaments/nothing-here/").status_code == 404


# ---------------------------------------------------------------------------
# JSON nested too deeply, anonymously too
# ---------------------------------------------------------------------------


def nested(depth: int, opening: str = "[", closing: str = "]") -> str:
    return opening * depth + closing * depth


def nested_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("address", ["/api/auth/token/", "/api/auth/claim-links/"])
@pytest.mark.parametrize(
    "body",
    [
        nested(100_000),
        nested_objects(100_000),
        '{"username": ' + nested(50_000) + ', "password": "x"}',
        '{"email": ' + nested(JSON_MAX_DEPTH + 1) + "}",
        '{"email": ' + nested(900) + "}",
    ],
    ids=["arrays-100k", "objects-100k", "field-50k", "just-too-deep", "field-900"],
)
def test_a_deeply_nested_json_body_is_400_with_a_sentence(db, address, body):
    response = APIClient().post(address, body, content_type="application/json")
    assert_api_refusal(response, "nest")


def test_a_json_body_within_the_depth_is_read(cup, organizer):
    api = APIClient()
    api.force_authenticate(organizer)
    body = '{"name": "Renamed Cup", "x": ' + nested(JSON_MAX_DEPTH - 2) + "}"
    response = api.patch("/api/tournaments/hostile-cup/", body, content_type="application/json")
    assert response.status_code == 200, response.content[:300]
    assert response.json()["name"] == "Renamed Cup"


def _api_views(patterns=None):
    from django.urls import URLPattern, URLResolver, get_resolver

    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from _api_views(entry.url_patterns)
        elif isinstance(entry, URLPattern):
            view = getattr(entry.callback, "cls", None)
            if view is not None:
                yield view


def test_every_api_view_parses_json_with_the_depth_limit():
    from rest_framework.parsers import JSONParser

    from apps.core.parsers import JsonParser

    views = list(_api_views())
    assert len(views) > 50
    plain = [
        view.__name__
        for view in views
        for parser in view.parser_classes
        if issubclass(parser, JSONParser) and not issubclass(parser, JsonParser)
    ]
    assert plain == []


def test_a_nul_in_a_header_is_400_before_the_token_or_session_is_looked_up(client, cup):
    response = APIClient().get("/api/tournaments/", HTTP_AUTHORIZATION="Token abc\x00def")
    assert_api_refusal(response, "NUL", "Authorization")
    # The test client escapes its cookies; a raw header is what a hostile client sends.
    assert client.get("/t/hostile-cup/", HTTP_COOKIE="sessionid=abc\x00def").status_code == 400


@pytest.mark.parametrize(
    "address",
    [
        "/api/groups/8008962745658717108118/games/",
        "/api/stages/99999999999999999999/",
        "/api/games/9223372036854775808/",
    ],
)
def test_an_id_too_large_for_the_database_is_an_address_of_nothing(db, address):
    """Found by the schema fuzz: a 22-digit id overflowed the database's integers (500)."""
    response = APIClient().get(address)
    assert response.status_code == 404, response.content[:300]
    assert response.json()["code"] == "not_found"


def test_a_page_address_with_a_number_too_large_is_404(client, cup):
    assert client.get("/t/hostile-cup/s/99999999999999999999/").status_code == 404
