"""Who may do what: writes are for organizers (staff count as organizers), unpublished stages
and their groups exist only for their organizers."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from apps.stages.models import DrawJob, Stage
from apps.stages.services import create_tournament
from tests.worlds.api import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.api import client_for

CSV = "code,name,nation\nZ1,Zed,ITA\n"


def writes(stage_id: int) -> list[tuple[str, object, dict]]:
    base = f"/api/stages/{stage_id}"
    return [
        (f"{base}/entrants/import/", CSV, {"content_type": "text/csv"}),
        (f"{base}/entrants/import/?dry_run=1", CSV, {"content_type": "text/csv"}),
        (f"{base}/close-registration/", None, {}),
        (f"{base}/reopen-registration/", None, {}),
        (f"{base}/draw/", {"seed": "mine"}, {"format": "json"}),
        (f"{base}/draw/", {}, {"format": "json"}),
        (f"{base}/publish/", None, {}),
    ]


@pytest.mark.parametrize("who", ["anon", "joe"])
@pytest.mark.parametrize("fixture", ["draft_stage", "drawn_stage", "published_stage"])
def test_only_organizers_write(request, who, fixture):
    stage = request.getfixturevalue(fixture)
    client = request.getfixturevalue(who)
    before = Stage.objects.values().get(pk=stage.pk)
    jobs = DrawJob.objects.count()
    for url, body, options in writes(stage.pk):
        answer = client.post(url, body, **options)
        assert answer.status_code == 403, (url, answer.json())
        assert answer.json()["code"] == "permission_denied"
        assert answer.json()["message"] == "Only the organizers of Test Cup may do this."
    assert Stage.objects.values().get(pk=stage.pk) == before
    assert DrawJob.objects.count() == jobs
    assert stage.entries.count() == 300


def test_staff_act_as_organizers_of_every_tournament(staff, draft_stage):
    client = client_for(staff)
    assert client.get(f"/api/stages/{draft_stage.pk}/").status_code == 200
    assert client.get(f"/api/stages/{draft_stage.pk}/entrants/").status_code == 200
    answer = client.post(f"/api/stages/{draft_stage.pk}/close-registration/")
    assert answer.status_code == 200
    assert answer.json()["status"] == "registration_closed"


def test_writing_to_a_missing_stage_is_404(org):
    answer = org.post("/api/stages/999999/close-registration/")
    assert answer.status_code == 404
    assert answer.json()["message"] == "There is no stage 999999."


@pytest.mark.parametrize("who", ["anon", "joe"])
def test_unpublished_stages_and_groups_are_hidden(request, who, drawn_stage):
    client = request.getfixturevalue(who)
    stage_id = drawn_stage.pk
    group_id = drawn_stage.groups.first().pk
    detail = client.get(f"/api/stages/{stage_id}/")
    assert detail.status_code == 404
    assert detail.json()["code"] == "not_found"
    assert "not published yet" in detail.json()["message"]
    assert client.get("/api/stages/").json()["count"] == 0
    assert client.get(f"/api/stages/?tournament={drawn_stage.tournament.slug}").json()["count"] == 0
    assert client.get("/api/tournaments/test-cup/").json()["stages"] == []
    assert client.get(f"/api/groups/?stage={stage_id}").json()["count"] == 0
    assert client.get("/api/groups/").json()["count"] == 0
    assert client.get(f"/api/groups/{group_id}/").status_code == 404
    assert client.get(f"/api/groups/{group_id}/games/").status_code == 404
    assert client.get(f"/api/stages/{stage_id}/entrants/").status_code == 404
    assert client.get(f"/api/stages/{stage_id}/entrants.csv").status_code == 404
    job = drawn_stage.draw_jobs.first()
    assert client.get(f"/api/draw-jobs/{job.pk}/").status_code == 403


def test_organizers_see_their_unpublished_stage_and_groups(org, drawn_stage):
    stage_id = drawn_stage.pk
    assert org.get(f"/api/stages/{stage_id}/").json()["status"] == "drawn"
    assert [s["id"] for s in org.get("/api/tournaments/test-cup/").json()["stages"]] == [stage_id]
    assert org.get(f"/api/groups/?stage={stage_id}").json()["count"] == 3
    group_id = drawn_stage.groups.first().pk
    assert len(org.get(f"/api/groups/{group_id}/").json()["seats"]) == 100


def test_an_organizer_of_another_tournament_does_not_see_this_one(drawn_stage):
    other = get_user_model().objects.create_user("ann", "ann@example.org")
    create_tournament(other, name="Other Cup", slug="other-cup")
    client = client_for(other)
    assert client.get(f"/api/stages/{drawn_stage.pk}/").status_code == 404
    assert [s["tournament"] for s in client.get("/api/stages/").json()["results"]] == ["other-cup"]
    answer = client.post(f"/api/stages/{drawn_stage.pk}/publish/")
    assert answer.status_code == 403


@pytest.mark.parametrize("who", ["anon", "joe"])
def test_the_entrant_list_and_export_are_for_organizers_even_when_published(
    request, who, published_stage
):
    client = request.getfixturevalue(who)
    for url in (
        f"/api/stages/{published_stage.pk}/entrants/",
        f"/api/stages/{published_stage.pk}/entrants.csv",
    ):
        answer = client.get(url)
        assert answer.status_code == 403
        assert answer.json()["code"] == "permission_denied"


def test_the_public_sees_published_stages_and_groups(anon, published_stage):
    assert anon.get(f"/api/stages/{published_stage.pk}/").json()["status"] == "published"
    assert anon.get(f"/api/groups/?stage={published_stage.pk}").json()["count"] == 3


def test_token_authentication_works_like_a_session(organizer, drawn_stage):
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=organizer).key}")
    assert client.get(f"/api/stages/{drawn_stage.pk}/").status_code == 200
    client.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    answer = client.get(f"/api/stages/{drawn_stage.pk}/")
    assert answer.status_code in (401, 403)
    assert answer.json()["code"] == "authentication_failed"
