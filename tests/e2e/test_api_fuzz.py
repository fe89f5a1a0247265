"""The API answers every request its own schema allows without a server error, and every
answer matches the schema (schemathesis, a bounded number of examples per operation).

The requests come from the schema at /api/schema/: every operation, with generated path
parameters, query strings and bodies, once as the public and once as a staff member (who may
do everything, so the writes go past the permission checks into the actions). They run in
this process against one published stage; each test's changes are rolled back.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import tasks_in_process
from tests.worlds.published import build_world

EXAMPLES = 12  # per operation and role: enough to find crashes, bounded for CI
# What must hold for every answer: no 5xx; a status, a content type and a body the schema
# documents. (Whether the API accepts every schema-valid body, rejects every invalid one or
# ignores bad credentials next to a valid session is not asked here.)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
# A PGN body (the result import) is text, as a CSV one is.
schemathesis.serializer.alias("application/x-chess-pgn", "text/plain")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fuzz_world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), tasks_in_process():
        world = build_world(None, slug="fuzz-cup")
        world.token = Token.objects.create(user=world.users["staff"]).key
        yield world
        call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """The requests go straight to the WSGI handler, whose request signals close the
    database connection at the end of each request; inside the test's transaction (on
    PostgreSQL) that would close the connection the test rolls back. Django's test client
    disconnects the same receivers."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(params=["anonymous", "staff"])
def headers(request, fuzz_world) -> dict[str, str]:
    # The WSGI transport offers gzip (requests' default headers) but does not decompress the
    # answers GZipMiddleware then compresses: ask for them plain (tests/core/test_compression.py
    # checks the compression).
    plain = {"Accept-Encoding": "identity"}
    if request.param == "anonymous":
        return plain
    return {**plain, "Authorization": f"Token {fuzz_world.token}"}


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
@pytest.mark.django_db
def test_no_server_error_and_answers_match_the_schema(case, headers):
    case.call_and_validate(headers=headers, checks=CHECKS)
