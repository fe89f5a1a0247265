"""Errors from anywhere under /api/ are the API's JSON {code, message, details}, never an
HTML page: a bug (500), a body over DATA_UPLOAD_MAX_MEMORY_SIZE (413), more fields than
DATA_UPLOAD_MAX_NUMBER_FIELDS (400 too_many_fields). Pages keep their HTML error pages."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db


def _shape(answer) -> dict:
    assert answer["Content-Type"].startswith("application/json")
    body = answer.json()
    assert set(body) == {"code", "message", "details"}
    assert isinstance(body["details"], list) and body["message"].endswith(".")
    return body


@pytest.fixture
def quiet():
    """A client that answers an unexpected exception as the server does (no re-raise)."""
    return Client(raise_request_exception=False)


def _boom(*args, **kwargs):
    raise RuntimeError("a bug")


def test_a_bug_in_an_api_view_answers_json_500(world, quiet, monkeypatch):
    monkeypatch.setattr("apps.groups.api.group_seats", _boom)
    answer = quiet.get(f"/api/groups/{world.group.pk}/")
    assert answer.status_code == 500
    body = _shape(answer)
    assert body["code"] == "server_error" and "a bug" not in body["message"]


def test_a_bug_in_a_page_answers_the_html_500_page(world, quiet, monkeypatch):
    monkeypatch.setattr("apps.groups.views.group_lines", _boom)
    answer = quiet.get(f"/t/{world.tournament.slug}/s/1/g/1/")
    assert answer.status_code == 500
    assert answer["Content-Type"].startswith("text/html")
    assert "Something went wrong" in answer.text


def test_a_json_body_over_the_limit_answers_413(db, client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"email": "x" * 2000 + "@people.test"})
    answer = client.post("/api/auth/claim-links/", body, content_type="application/json")
    assert answer.status_code == 413
    body = _shape(answer)
    assert body["code"] == "request_too_large" and "1000" in body["message"]


def test_a_form_body_over_the_limit_answers_413(db, client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    answer = client.post(
        "/api/auth/claim-links/",
        "email=" + "x" * 2000,
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 413
    assert _shape(answer)["code"] == "request_too_large"


def test_a_multipart_body_with_large_fields_answers_413(world, api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    client = api(world.users["organizer"])
    answer = client.post(
        f"/api/stages/{world.stage.pk}/tds/", {"csv": "1,a@people.test\n" * 200}, format="multipart"
    )
    assert answer.status_code == 413
    assert _shape(answer)["code"] == "request_too_large"


def test_too_many_form_fields_answer_json(db, client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    body = "&".join(f"f{i}=1" for i in range(20))
    answer = client.post(
        "/api/auth/claim-links/", body, content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 400
    body = _shape(answer)
    assert body["code"] == "too_many_fields" and "5 fields" in body["message"]


def test_too_many_multipart_fields_answer_json(db, client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    answer = client.post("/api/auth/claim-links/", {f"f{i}": "1" for i in range(20)})
    assert answer.status_code == 400
    assert _shape(answer)["code"] == "too_many_fields"


def test_too_many_fields_in_a_body_drf_parses_later_answer_json(world, settings):
    """PATCH bodies are parsed in the view (Django parses only POST forms up front); the
    error handler answers for them."""
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    client = Client(raise_request_exception=False)
    client.force_login(world.users["player"])
    body = "&".join(f"f{i}=1" for i in range(20))
    answer = client.patch(
        "/api/me/notifications/", body, content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 400
    assert _shape(answer)["code"] == "too_many_fields"


def test_a_large_body_drf_parses_later_answers_413(world, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    client = Client(raise_request_exception=False)
    client.force_login(world.users["player"])
    answer = client.patch(
        "/api/me/notifications/", json.dumps({"x": "y" * 2000}), content_type="application/json"
    )
    assert answer.status_code == 413
    assert _shape(answer)["code"] == "request_too_large"


def test_pages_keep_their_html_error_pages(db, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    client = Client(raise_request_exception=False)
    body = "&".join(f"f{i}=1" for i in range(20))
    answer = client.post("/accounts/claim/", body, content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 400
    assert answer["Content-Type"].startswith("text/html")
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404 and missing["Content-Type"].startswith("text/html")


def test_a_csv_body_over_the_request_limit_answers_413_unread(world, api, settings):
    settings.REQUEST_BODY_MAX_BYTES = 1000
    client = api(world.users["organizer"])
    before = world.stage.entries.count()
    answer = client.post(
        f"/api/stages/{world.stage.pk}/entrants/import/",
        "code,name,nation\n" + "A1,Name,ITA\n" * 200,
        content_type="text/csv",
    )
    assert answer.status_code == 413
    assert _shape(answer)["code"] == "request_too_large"
    assert world.stage.entries.count() == before


def test_a_file_upload_over_the_request_limit_answers_413(world, api, settings):
    """Django limits a multipart body's fields, not its files: the request limit does."""
    settings.REQUEST_BODY_MAX_BYTES = 1000
    client = api(world.users["organizer"])
    upload = SimpleUploadedFile("e.csv", b"code,name,nation\n" + b"A1,Name,ITA\n" * 200)
    answer = client.post(
        f"/api/stages/{world.stage.pk}/entrants/import/", {"file": upload}, format="multipart"
    )
    assert answer.status_code == 413
    assert _shape(answer)["code"] == "request_too_large"


def test_a_page_upload_over_the_request_limit_answers_the_413_page(world, settings):
    settings.REQUEST_BODY_MAX_BYTES = 1000
    client = Client()
    client.force_login(world.users["organizer"])
    upload = SimpleUploadedFile("e.csv", b"code,name,nation\n" + b"A1,Name,ITA\n" * 200)
    answer = client.post(f"/t/{world.tournament.slug}/s/1/import/", {"file": upload, "mode": "add"})
    assert answer.status_code == 413
    assert answer["Content-Type"].startswith("text/html")
    assert "too large" in answer.text and "1000" in answer.text
