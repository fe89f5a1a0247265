"""A JSON body that is not an object (null, a list, a number) is a bad request (400, in the
API's error format), never a server error: the CSV imports read ``request.data`` as a mapping
(schemathesis sent ``null`` to the entrant import and the TD list: 500)."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from apps.stages.services import create_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer_api():
    organizer = get_user_model().objects.create_user("odd-org", "odd@people.test", "unused")
    cup = create_tournament(
        organizer, name="Odd Cup", slug="odd-cup", games_per_player=4, stages=[{}]
    )
    api = APIClient()
    api.force_authenticate(organizer)
    return api, cup.first_stage


@pytest.mark.parametrize("body", ["null", "[]", '["dry_run"]', "7"])
@pytest.mark.parametrize(
    "address",
    [
        "/api/stages/{id}/entrants/import/",
        "/api/stages/{id}/entrants/import/?dry_run=1",
        "/api/stages/{id}/tds/",
    ],
)
def test_a_json_body_that_is_no_object_is_a_bad_request(organizer_api, address, body):
    api, stage = organizer_api
    answer = api.post(address.format(id=stage.pk), body, content_type="application/json")
    assert answer.status_code == 400, answer.content
    assert set(answer.json()) == {"code", "message", "details"}
