"""While a group's standings wait for their recompute, the pages and the API say so and since
when, the qualification waits, and organizers can force a recompute (page button, API)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent
from apps.groups.models import Group
from apps.qualification.services import confirm, preview
from apps.results.services import enter_result
from apps.standings.freshness import stage_pending
from apps.standings.models import StandingsMark
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.healing import PASSWORD, open_games

pytestmark = pytest.mark.django_db(transaction=True)

BEING_UPDATED = "The standings are being updated: results entered since"
BUTTON = "Recompute these standings"
STAGE_BUTTON = "Recompute every group's standings"


@pytest.fixture
def pending(organizer, group, queued) -> StandingsMark:
    """Group 1 has a result its standings do not count yet (its recompute never ran)."""
    game = open_games(group)[0]
    enter_result(organizer, game, "1-0", expected_version=game.version)
    since = timezone.now() - timedelta(minutes=3)
    StandingsMark.objects.filter(group=group).update(pending_since=since)
    return StandingsMark.objects.get(group=group)


def page(client, name: str, group: Group) -> str:
    stage = group.stage
    args = [stage.tournament.slug, stage.order, group.number]
    return client.get(reverse(name, args=args)).content.decode()


def ranking_url(stage) -> str:
    return reverse("stage-ranking", args=[stage.tournament.slug, stage.order])


def test_group_pages_say_the_standings_are_being_updated_and_since_when(client, group, pending):
    for name in ("group-standings", "group-crosstable"):
        html = page(client, name, group)
        assert BEING_UPDATED in html, name
        assert "3\xa0minutes ago" in html, name
        assert BUTTON not in html  # the public gets no button
    other = Group.objects.get(stage=group.stage, number=2)
    assert BEING_UPDATED not in page(client, "group-standings", other)


def test_the_ranking_says_how_many_groups_are_being_updated(client, group, pending):
    html = client.get(ranking_url(group.stage)).content.decode()
    assert "The standings of 1 group are being updated (since" in html
    assert STAGE_BUTTON not in html


def test_the_api_gives_pending_since(client, group, pending):
    for view in ("standings", "crosstable"):
        body = client.get(f"/api/groups/{group.pk}/{view}/").json()
        assert body["pending_since"] is not None, view
    other = Group.objects.get(stage=group.stage, number=2)
    assert client.get(f"/api/groups/{other.pk}/standings/").json()["pending_since"] is None
    ranking = client.get(f"/api/stages/{group.stage.pk}/ranking/").json()
    assert ranking["pending_groups"] == 1 and ranking["pending_since"] is not None


def test_an_organizer_recomputes_a_group_from_its_page(client, organizer, group, queued):
    url = reverse("group-standings", args=[group.stage.tournament.slug, 1, group.number])
    client.login(username=organizer.username, password=PASSWORD)
    assert BUTTON in client.get(url).content.decode()
    response = client.post(url, follow=True)
    assert response.redirect_chain == [(url, 302)]
    assert "The standings of 1 group are being recomputed" in response.content.decode()
    assert queued == [group.pk]
    event = AuditEvent.objects.get(action=Action.STANDINGS_RECOMPUTE_FORCED)
    assert event.group_id == group.pk


def test_the_ranking_button_recomputes_every_group(client, organizer, published_stage, queued):
    url = ranking_url(published_stage)
    client.login(username=organizer.username, password=PASSWORD)
    assert STAGE_BUTTON in client.get(url).content.decode()
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == url
    assert sorted(queued) == sorted(published_stage.groups.values_list("pk", flat=True))


def test_only_organizers_may_force_a_recompute(client, stranger, published_stage, queued):
    url = ranking_url(published_stage)
    response = client.post(url)
    assert response.status_code == 302 and reverse("login") in response["Location"]
    client.login(username=stranger.username, password=PASSWORD)
    assert client.post(url).status_code == 403
    assert (
        queued == []
        and not AuditEvent.objects.filter(action=Action.STANDINGS_RECOMPUTE_FORCED).exists()
    )


def test_post_recompute_answers_202_for_organizers(organizer, stranger, published_stage, queued):
    url = f"/api/stages/{published_stage.pk}/recompute/"
    api = APIClient()
    assert api.post(url).status_code == 403
    api.force_authenticate(stranger)
    assert api.post(url).status_code == 403
    api.force_authenticate(organizer)
    response = api.post(url)
    assert response.status_code == 202
    body = response.json()
    assert body["groups"] == 2 and body["pending_groups"] == 2
    assert body["pending_since"] is not None
    assert len(queued) == 2
    following = published_stage.tournament.stages.get(order=2)
    refused = api.post(f"/api/stages/{following.pk}/recompute/")
    assert refused.status_code == 409 and refused.json()["code"] == "wrong_status"


def test_qualification_waits_for_pending_standings(organizer, group, pending):
    stage = group.stage
    blockers = preview(stage).blockers
    assert any("The standings of 1 group are being updated" in b for b in blockers), blockers
    with pytest.raises(ActionError) as refused:
        confirm(organizer, stage)
    assert "being updated" in refused.value.message

    StandingsMark.objects.update(pending_since=None)
    assert stage_pending(stage).groups == 0
    assert not any("being updated" in b for b in preview(stage).blockers)
