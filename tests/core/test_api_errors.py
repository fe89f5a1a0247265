"""Every error is JSON a person can act on: {code, message, details}."""

from rest_framework import exceptions
from rest_framework.test import APIRequestFactory

from apps.core.api import exception_handler
from apps.core.errors import ActionError, ErrorCode
from tests.worlds.api import *  # noqa: F403 (the fixtures of this world)


def _shape(body: dict) -> None:
    assert set(body) == {"code", "message", "details"}
    assert isinstance(body["details"], list)
    assert body["message"].endswith((".", "/"))


def test_an_action_error_keeps_its_status_code_message_and_details():
    error = ActionError(ErrorCode.BAD_ROWS, "Two bad rows.", [{"line": 2, "message": "x"}])
    answer = exception_handler(error, {})
    assert answer.status_code == 400
    assert answer.data == {
        "code": "bad_rows",
        "message": "Two bad rows.",
        "details": [{"line": 2, "message": "x"}],
    }


def test_nested_validation_errors_name_each_field():
    error = exceptions.ValidationError(
        {"seed": ["Too long."], "rows": [{"code": ["Missing."]}, {}], "non_field_errors": ["No."]}
    )
    answer = exception_handler(error, {})
    assert answer.status_code == 400
    assert answer.data["code"] == "invalid_input"
    assert answer.data["details"] == [
        {"field": "seed", "message": "Too long.", "code": "invalid"},
        {"field": "rows.0.code", "message": "Missing.", "code": "invalid"},
        {"field": None, "message": "No.", "code": "invalid"},
    ]
    assert answer.data["message"] == (
        "The request is not valid — seed: Too long.; rows.0.code: Missing.; No. "
        "Correct it and send it again."
    )


def test_throttled_says_when_to_come_back():
    answer = exception_handler(exceptions.Throttled(wait=30), {})
    assert answer.status_code == 429
    assert answer["Retry-After"] == "30"
    assert answer.data["code"] == "throttled"
    assert answer.data["message"] == "Too many requests; try again in 30 seconds."


def test_not_authenticated_says_how_to_sign_in():
    request = APIRequestFactory().get("/api/stages/")
    answer = exception_handler(exceptions.NotAuthenticated(), {"request": request})
    assert answer.status_code == 401
    assert answer.data["code"] == "not_authenticated"
    assert "Authorization: Token" in answer.data["message"]


def test_a_default_permission_denied_is_a_sentence():
    answer = exception_handler(exceptions.PermissionDenied(), {})
    assert answer.status_code == 403
    assert answer.data == {
        "code": "permission_denied",
        "message": "You are not allowed to do this.",
        "details": [],
    }


def test_a_bug_is_left_to_django():
    assert exception_handler(ZeroDivisionError(), {}) is None


def test_an_unknown_api_address_is_a_json_404(anon, db):
    answer = anon.get("/api/nothing-here/")
    assert answer.status_code == 404
    _shape(answer.json())
    assert answer.json()["message"] == (
        "There is no API endpoint at /api/nothing-here/. The endpoints are listed at /api/docs/."
    )


def test_a_missing_slash_is_pointed_out(anon, db):
    answer = anon.get("/api/tournaments")
    assert answer.status_code == 404
    assert answer.json()["message"].endswith("Addresses end with a slash: /api/tournaments/")


def test_a_wrong_method_names_the_right_one(org, draft_stage):
    answer = org.get(f"/api/stages/{draft_stage.pk}/publish/")
    assert answer.status_code == 405
    _shape(answer.json())
    assert answer.json() == {
        "code": "method_not_allowed",
        "message": "GET is not allowed here; use POST.",
        "details": [],
    }


def test_an_unsupported_body_lists_the_accepted_ones(org, draft_stage):
    answer = org.post(
        f"/api/stages/{draft_stage.pk}/entrants/import/", "x", content_type="text/plain"
    )
    assert answer.status_code == 415
    _shape(answer.json())
    assert answer.json()["code"] == "unsupported_media_type"
    assert "text/csv, application/json, multipart/form-data" in answer.json()["message"]


def test_malformed_json_is_invalid_input(org, draft_stage):
    answer = org.post(
        f"/api/stages/{draft_stage.pk}/draw/", "{not json", content_type="application/json"
    )
    assert answer.status_code == 400
    _shape(answer.json())
    assert answer.json()["code"] == "invalid_input"
    assert answer.json()["message"].startswith("The request body could not be read")


def test_a_missing_group_is_a_json_404(anon, db):
    answer = anon.get("/api/groups/424242/")
    assert answer.status_code == 404
    _shape(answer.json())
    assert "There is no group 424242" in answer.json()["message"]
