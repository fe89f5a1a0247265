"""A season set up through the API alone, from an empty site: the first account comes from
`createsuperuser` (staff), creates a tournament with a preliminary, a semifinal and a final,
imports 500 entrants, edits one, removes one, adds one, closes registration, draws and
publishes; the groups are then public. No service is called directly."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants

pytestmark = pytest.mark.slow


@pytest.fixture
def api(db, monkeypatch) -> APIClient:
    """The first account, made as the README says, signed in to the API with a token."""
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-first-password")
    call_command("createsuperuser", interactive=False, username="boss", email="boss@example.org")
    client = APIClient()
    token = client.post(
        "/api/auth/token/",
        {"username": "boss", "password": "a-long-first-password"},
        format="json",
    )
    assert token.status_code in (200, 201), token.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    return client


def test_a_season_from_an_empty_site_through_the_api(api, django_capture_on_commit_callbacks):
    created = api.post(
        "/api/tournaments/",
        {
            "name": "Open Season 2027",
            "games_per_player": 10,
            "stage_kinds": ["preliminary", "semifinal", "final"],
            "description": "Three stages, Silli groups.",
            "contact_email": "office@season.test",
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    slug = created.json()["slug"]
    assert slug == "open-season-2027"
    cup = api.get(f"/api/tournaments/{slug}/").json()
    kinds = [s["kind"] for s in cup["stages"]]
    assert kinds == ["preliminary", "semifinal", "final"]
    stages = {s["kind"]: api.get(s["url"]).json() for s in cup["stages"]}
    assert stages["preliminary"]["separate_nations"] and not stages["final"]["separate_nations"]
    assert all(s["avoid_rematches"] for s in stages.values())
    stage = stages["preliminary"]
    base = f"/api/stages/{stage['id']}"

    changed = api.patch(f"{base}/", {"min_group_size": 90}, format="json")
    assert changed.status_code == 200 and changed.json()["min_group_size"] == 90

    imported = api.post(
        f"{base}/entrants/import/",
        entrants_csv(make_entrants(500, "season")),
        content_type="text/csv",
    )
    assert imported.status_code in (200, 201), imported.json()
    listed = api.get(f"{base}/entrants/?page_size=500").json()
    codes = [e["code"] for e in listed["results"]]
    assert listed["count"] == 500

    edited = api.patch(f"{base}/entrants/{codes[0]}/", {"rating": 2345}, format="json")
    assert edited.status_code == 200 and edited.json()["rating"] == 2345
    assert api.delete(f"{base}/entrants/{codes[1]}/").status_code == 204
    added = api.post(
        f"{base}/entrants/",
        {"name": "Newcomer, Nina", "nation": "ITA", "rating": 1900},
        format="json",
    )
    assert added.status_code == 201, added.json()
    bad = api.post(f"{base}/entrants/", {"name": "X", "nation": "XYZ"}, format="json")
    assert bad.status_code == 400

    closed = api.post(f"{base}/close-registration/")
    assert closed.status_code == 200 and closed.json()["entrant_count"] == 500
    frozen = api.patch(f"{base}/", {"min_group_size": 40}, format="json")
    assert frozen.status_code == 409
    assert (
        api.post(f"{base}/entrants/", {"name": "Late", "nation": "ITA"}, format="json").status_code
        == 409
    )

    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"{base}/draw/", {"seed": "Lotto 2027-01-02"}, format="json")
    assert started.status_code == 202, started.json()
    job = api.get(started.json()["progress_url"]).json()
    assert job["status"] == "succeeded", job["error"]
    with django_capture_on_commit_callbacks(execute=True):
        published = api.post(f"{base}/publish/")
    assert published.status_code == 200 and published.json()["status"] == "published"

    groups = APIClient().get(f"/api/groups/?stage={stage['id']}").json()
    assert groups["count"] == 5  # 500 // 90 groups of 100
    games = APIClient().get(groups["results"][0]["games_url"]).json()["results"]
    assert games and all("id" in g and "number" in g for g in games)
