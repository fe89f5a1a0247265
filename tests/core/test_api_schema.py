"""The OpenAPI schema documents every endpoint without a warning; the docs work offline."""

import json

import pytest
from django.core.management import call_command

from tests.worlds.api import *  # noqa: F403 (the fixtures of this world)

ENDPOINTS = {
    "/api/tournaments/": {"get", "post"},
    "/api/tournaments/{slug}/": {"get", "patch"},
    "/api/tournaments/{slug}/stages/": {"post"},
    "/api/stages/": {"get"},
    "/api/stages/{id}/": {"get", "patch", "delete"},
    "/api/stages/{id}/entrants/": {"get", "post"},
    "/api/stages/{id}/entrants/{code}/": {"patch", "delete"},
    "/api/stages/{id}/entrants.csv": {"get"},
    "/api/stages/{id}/entrants/import/": {"post"},
    "/api/stages/{id}/close-registration/": {"post"},
    "/api/stages/{id}/reopen-registration/": {"post"},
    "/api/stages/{id}/draw/": {"post"},
    "/api/stages/{id}/draw/cancel/": {"post"},
    "/api/stages/{id}/publish/": {"post"},
    "/api/stages/{id}/next-round/": {"get", "post"},
    "/api/stages/{id}/late-entrants/": {"post"},
    "/api/stages/{id}/publication/": {"get"},
    "/api/draw-jobs/{id}/": {"get"},
    "/api/stages/{id}/lab-runs/": {"post"},
    "/api/lab-runs/{id}/": {"get"},
    "/api/import-jobs/{id}/": {"get"},
    "/api/results-import-jobs/{id}/": {"get"},
    "/api/groups/": {"get"},
    "/api/groups/{id}/": {"get"},
    "/api/groups/{id}/games/": {"get"},
    "/api/players/": {"get"},
    "/api/players/{person_id}/": {"get"},
    "/api/games/{id}/": {"get"},
    "/api/games/{id}/result/": {"post"},
    "/api/games/{id}/reports/": {"get", "post"},
    "/api/games/{id}/reports/{report_id}/confirm/": {"post"},
    "/api/games/{id}/reports/{report_id}/dispute/": {"post"},
    "/api/games/{id}/pgn": {"get"},
    # play on the server
    "/api/games/{id}/play/": {"get"},
    "/api/games/{id}/moves/": {"post"},
    "/api/games/{id}/draw-offer/": {"post"},
    "/api/games/{id}/long-think/": {"post"},
    "/api/games/{id}/draw-accept/": {"post"},
    "/api/games/{id}/draw-decline/": {"post"},
    "/api/games/{id}/resign/": {"post"},
    "/api/games/{id}/claim/": {"post"},
    "/api/games/{id}/conditionals/": {"get", "post", "delete"},
    "/api/games/{id}/add-days/": {"post"},
    "/api/groups/{id}/games.pgn": {"get"},
    "/api/stages/{id}/games.pgn": {"get"},
    "/api/groups/{id}/td/": {"post"},
    "/api/groups/{id}/standings/": {"get"},
    "/api/groups/{id}/crosstable/": {"get"},
    "/api/groups/{id}/rounds/{round_number}/": {"get"},
    "/api/stages/{id}/ranking/": {"get"},
    "/api/stages/{id}/recompute/": {"post"},
    "/api/stages/{id}/withdrawals/": {"post"},
    "/api/groups/{id}/results/import/": {"post"},
    "/api/stages/{id}/results/import/": {"post"},
    "/api/stages/{id}/close/": {"post"},
    "/api/stages/{id}/adjudication/": {"post"},
    "/api/stages/{id}/qualification/": {"get"},
    "/api/stages/{id}/qualification/rule/": {"post"},
    "/api/stages/{id}/qualification/prequalified/": {"post"},
    "/api/stages/{id}/qualification/declined/": {"post"},
    "/api/stages/{id}/qualification/confirm/": {"post"},
    "/api/groups/{id}/close/": {"post"},
    "/api/groups/{id}/reopen/": {"post"},
    "/api/auth/token/": {"post"},
    "/api/auth/claim-links/": {"post"},
    "/api/me/": {"get"},
    "/api/me/claims/": {"post"},
    "/api/me/notifications/": {"get", "put", "patch"},
    "/api/me/leave/": {"get", "post"},
    "/api/me/leave/{id}/": {"delete"},
    "/api/invitations/accept/": {"post"},
    "/api/tournaments/{slug}/invitations/": {"get", "post"},
    "/api/tournaments/{slug}/entrant-links/": {"post"},
    "/api/tournaments/{slug}/claim-links/": {"post"},
    "/api/stages/{id}/tds/": {"get", "post"},
    "/api/organizers/": {"get"},
    "/api/organizers/{user_id}/": {"get", "put", "delete"},
    # rating lists, rating reports and norm figures (apps/ratinglists)
    "/api/rating-lists/": {"get", "post"},
    "/api/rating-lists/{id}/": {"get"},
    "/api/rating-list-jobs/{id}/": {"get"},
    "/api/stages/{id}/rating-list/": {"get", "post"},
    "/api/groups/{id}/rating-report/": {"get"},
    "/api/stages/{id}/rating-report/": {"get"},
    "/api/groups/{id}/norms/": {"get"},
    "/api/stages/{id}/registrations/": {"get", "post"},
    "/api/stages/{id}/registrations/decide/": {"post"},
    "/api/registrations/{id}/withdraw/": {"post"},
}


def test_the_schema_validates_without_warnings_and_lists_every_endpoint(tmp_path):
    out = tmp_path / "schema.json"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--format",
        "openapi-json",
        "--file",
        str(out),
    )
    schema = json.loads(out.read_text())
    assert {path: set(ops) for path, ops in schema["paths"].items()} == ENDPOINTS
    draw = schema["paths"]["/api/stages/{id}/draw/"]["post"]
    # 422: a Swiss with too few entrants for its rounds, or settings no seed can draw
    assert set(draw["responses"]) == {"202", "400", "403", "404", "409", "422", "429"}
    imports = schema["paths"]["/api/stages/{id}/entrants/import/"]["post"]
    assert {"text/csv", "application/json", "multipart/form-data"} <= set(
        imports["requestBody"]["content"]
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_the_schema_and_docs_pages_answer(client, settings, path):
    # The manifest storage of production needs collectstatic first; the page is the same.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    answer = client.get(path)
    assert answer.status_code == 200
    if path == "/api/docs/":
        html = answer.content.decode()
        assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
        assert "cdn.jsdelivr" not in html
