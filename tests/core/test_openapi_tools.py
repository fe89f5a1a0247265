"""The API schema (/api/schema/) as tools nobody on the team wrote read it.

- openapi-spec-validator accepts it (e.g. no default that the field's own format refuses);
- Redocly's ``spec`` ruleset finds no problem (redocly.yaml; the CLI comes from package.json
  through ``npm ci``: locally the test skips without it, in CI it fails);
- openapi-python-client generates a client from it (into a temporary directory, never kept)
  whose every endpoint module imports, and which lists the tournaments, reads a group's
  standings and enters a result with a token against a running server (pytest-django's
  ``live_server``).
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from openapi_spec_validator import validate

from apps.groups.models import Game
from apps.standings.models import GroupStanding
from tests.conftest import REDOCLY
from tests.worlds.published import build_world

ROOT = Path(__file__).resolve().parents[2]
CLIENT = "closed_circle_client"  # the generated package's name
PASSWORD = "pw-client-25"


def schema_json() -> bytes:
    """The schema as /api/schema/?format=json serves it."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return OpenApiJsonRenderer().render(schema, renderer_context={})


@pytest.fixture(scope="module")
def schema_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "openapi.json"
    path.write_bytes(schema_json())
    return path


@pytest.fixture(scope="module")
def client_package(schema_file, tmp_path_factory) -> Path:
    """The client openapi-python-client generates from the schema: the directory to put on
    sys.path (the package is ``closed_circle_client``)."""
    where = tmp_path_factory.mktemp("client")
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [
            str(bin_dir / "openapi-python-client"),
            "generate",
            "--path",
            str(schema_file),
            "--output-path",
            str(where / CLIENT),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        # Its formatting hooks run ruff, from this environment.
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return where


@pytest.fixture
def client_modules(client_package, monkeypatch):
    """Import the generated client from its directory (and forget it afterwards)."""
    monkeypatch.syspath_prepend(str(client_package))
    yield
    for name in [n for n in sys.modules if n == CLIENT or n.startswith(CLIENT + ".")]:
        del sys.modules[name]


def test_the_schema_is_valid_openapi():
    """openapi-spec-validator reads the schema as OpenAPI (before: the Prequalified email's
    default '' broke its own "email" format)."""
    schema = json.loads(schema_json())
    validate(schema)
    assert schema["openapi"].startswith("3.1")


@pytest.mark.redocly
def test_redocly_spec_ruleset_finds_no_problem(schema_file):
    """Before: 9 ``nullable-type-sibling`` errors (a nullable nested object or a free-form
    field written as 3.0's ``nullable`` without a ``type``)."""
    done = subprocess.run(
        [
            str(REDOCLY),
            "lint",
            "--config",
            str(ROOT / "redocly.yaml"),
            "--format",
            "json",
            str(schema_file),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"},
        timeout=300,
    )
    report = json.loads(done.stdout)
    problems = [
        f"{p['ruleId']} {p['location'][0]['pointer']}: {p['message']}" for p in report["problems"]
    ]
    assert problems == []
    assert report["totals"]["errors"] == report["totals"]["warnings"] == 0
    assert done.returncode == 0, done.stderr


def test_every_endpoint_module_of_a_generated_client_imports(client_modules):
    """Before: 20 of 76 modules failed (``NameError: name 'Unset' is not defined``: a
    required body offered in three media types), the token and result entry among them."""
    api = importlib.import_module(f"{CLIENT}.api")
    names = [
        name
        for module in pkgutil.walk_packages(api.__path__, f"{CLIENT}.api.")
        if not module.ispkg
        for name in [module.name]
    ]
    failed = {}
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # every failure is reported
            failed[name] = f"{type(error).__name__}: {error}"
    assert len(names) >= 70
    assert failed == {}


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_lists_reads_standings_and_enters_a_result(client_modules, live_server):
    world = build_world(None, password=PASSWORD, slug="client-cup")
    game = Game.objects.filter(group=world.group, result="").order_by("number").first()

    from closed_circle_client import AuthenticatedClient, Client  # type: ignore[import-not-found]
    from closed_circle_client.api.auth import auth_token_create  # type: ignore[import-not-found]
    from closed_circle_client.api.games import games_result_create  # type: ignore[import-not-found]
    from closed_circle_client.api.groups import (  # type: ignore[import-not-found]
        groups_standings_retrieve,
    )
    from closed_circle_client.api.tournaments import (  # type: ignore[import-not-found]
        tournaments_list,
    )
    from closed_circle_client.models import (  # type: ignore[import-not-found]
        GameDetail,
        GroupStandings,
        PaginatedTournamentList,
        ResultEnum,
        ResultRequest,
        Token,
        TokenRequest,
    )

    public = Client(base_url=live_server.url, raise_on_unexpected_status=True)
    page = tournaments_list.sync(client=public)
    assert isinstance(page, PaginatedTournamentList)
    assert [t.slug for t in page.results] == ["client-cup"]
    assert page.next_ is None

    standings = groups_standings_retrieve.sync(id=world.group.pk, client=public)
    assert isinstance(standings, GroupStandings)
    assert standings.group == world.group.pk
    assert len(standings.rows) == GroupStanding.objects.filter(group=world.group).count() > 0

    token = auth_token_create.sync(
        client=public, body=TokenRequest(username="org", password=PASSWORD)
    )
    assert isinstance(token, Token)
    organizer = AuthenticatedClient(
        base_url=live_server.url,
        token=token.token,
        prefix="Token",
        raise_on_unexpected_status=True,
    )
    answer = games_result_create.sync_detailed(
        id=game.pk,
        client=organizer,
        body=ResultRequest(result=ResultEnum("1-0"), expected_version=game.version),
    )
    assert answer.status_code == 200, answer.content
    assert isinstance(answer.parsed, GameDetail)
    game.refresh_from_db()
    assert game.result == "1-0"
    assert game.version == answer.parsed.version

    after = groups_standings_retrieve.sync(id=world.group.pk, client=public)
    points = {row.entrant.code: row.points for row in after.rows}
    assert points[game.white.code] == 1
