"""The publication's progress: publishing lands the organizer on a page that follows the work
the publication queued (standings of every group, the stage ranking, the verification files)
until it is complete; the same progress is JSON in the API and a line on the stage page, for
organizers only."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from apps.entrants.services import close_registration, import_entrants
from apps.office import publication
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.standings.freshness import ranking_state, schedule_recomputes
from apps.standings.models import RankingMark

from .conftest import api_client

pytestmark = pytest.mark.django_db


def stage_url(stage: Stage, name: str) -> str:
    return reverse(name, args=[stage.tournament.slug, stage.order])


def api_url(stage: Stage) -> str:
    return reverse("api-stage-publication", args=[stage.pk])


@pytest.fixture
def three_groups(preliminary, organizer, django_capture_on_commit_callbacks):
    """The preliminary drawn as three round-robin groups of 6 (not published)."""
    preliminary.format = Stage.Format.ROUND_ROBIN
    preliminary.min_group_size = 6
    preliminary.save()
    import_entrants(organizer, preliminary, entrants_csv(make_entrants(18, "pub")))
    stage = close_registration(organizer, preliminary)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, stage, "publication seed")
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    assert stage.groups.count() == 3
    return stage


@pytest.fixture
def org_client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


def run(callbacks, capture) -> None:
    """Run the captured on-commit callbacks (the queued tasks, in this process), and the
    callbacks those register in turn."""
    with capture(execute=True):
        for callback in callbacks:
            callback()


def assert_pending(data: dict, groups: int) -> None:
    assert data["finished"] is False and data["status"] == "running"
    assert data["standings"] == {"done": 0, "total": groups, "percent": 0, "finished": False}
    assert data["ranking"]["finished"] is False and data["ranking"]["done"] == 0
    assert data["files"] == {
        "done": 0,
        "total": len(publication.FILES),
        "percent": 0,
        "finished": False,
    }
    assert data["percent"] == 0


def assert_complete(data: dict, groups: int, entrants: int) -> None:
    assert data["finished"] is True and data["status"] == "succeeded"
    assert data["percent"] == 100
    assert data["standings"] == {"done": groups, "total": groups, "percent": 100, "finished": True}
    assert data["ranking"] == {
        "done": entrants,
        "total": entrants,
        "percent": 100,
        "finished": True,
    }
    assert data["files"]["done"] == data["files"]["total"] == len(publication.FILES)


def test_publishing_leads_to_the_progress_page_which_follows_the_queued_work(
    org_client, organizer, three_groups, django_capture_on_commit_callbacks
):
    stage = three_groups
    progress_url = stage_url(stage, "publication-progress")
    assert progress_url.endswith("/publish/progress/")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answer = org_client.post(stage_url(stage, "stage-publish"))
    assert answer.status_code == 302 and answer["Location"] == progress_url
    assert callbacks  # the standings, the start lists, the files: queued, not run yet

    # Right after the publication: nothing of it done yet.
    page = org_client.get(progress_url).content.decode()
    assert "0 of 3 groups" in page and f"0 of {len(publication.FILES)} files" in page
    assert "<h2>Publication complete</h2>" not in page
    assert 'id="publication-progress"' in page and 'data-finished="false"' in page
    assert f'data-url="{api_url(stage)}"' in page  # the page polls the API
    assert "js/job-progress.js" in page and "js/publication-progress.js" in page
    assert "not counted here" in page  # the start-list e-mails are not tracked
    assert_pending(api_client(organizer).get(api_url(stage)).json(), 3)
    # The page polls with the browser's session: the same JSON.
    polled = org_client.get(api_url(stage), HTTP_ACCEPT="application/json")
    assert polled.status_code == 200
    assert_pending(polled.json(), 3)
    stage_page = org_client.get(stage.get_absolute_url()).content.decode()
    assert "Publication in progress — 0 of 3 groups" in stage_page
    assert f'href="{progress_url}"' in stage_page

    # The workers ran the queued tasks: all done.
    run(callbacks, django_capture_on_commit_callbacks)
    data = api_client(organizer).get(api_url(stage)).json()
    assert_complete(data, 3, 18)
    page = org_client.get(progress_url).content.decode()
    assert "<h2>Publication complete</h2>" in page and "3 of 3 groups" in page
    assert 'data-finished="true"' in page and "js/job-progress.js" not in page
    assert f'href="{stage.get_absolute_url()}"' in page
    assert f'href="{stage_url(stage, "stage-ranking")}"' in page
    assert (
        "Publication in progress" not in org_client.get(stage.get_absolute_url()).content.decode()
    )


def test_a_result_entered_later_does_not_take_the_publication_back(
    organizer, three_groups, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        stage = publish_draw(organizer, three_groups)
    assert publication.publication_progress(stage).finished
    # A change marks a group pending again, and the ranking; nothing is recomputed yet.
    with django_capture_on_commit_callbacks(execute=False):
        schedule_recomputes([stage.groups.first().pk])
    RankingMark.objects.filter(stage=stage).update(pending_since=timezone.now())
    assert not ranking_state(stage).fresh
    progress = publication.publication_progress(stage)
    assert progress.finished and progress.standings.done == 3


def test_the_progress_costs_three_queries_whatever_the_groups(
    organizer, three_groups, django_assert_num_queries
):
    stage = publish_draw(organizer, three_groups)
    with django_assert_num_queries(3):
        progress = publication.publication_progress(stage)
    assert progress.standings.total == 3 and not progress.finished


def test_the_stage_page_line_is_for_organizers(client, stranger, organizer, published):
    assert (
        "Publication in progress" not in client.get(published.get_absolute_url()).content.decode()
    )
    client.force_login(stranger)
    assert (
        "Publication in progress" not in client.get(published.get_absolute_url()).content.decode()
    )
    client.force_login(organizer)
    assert "Publication in progress" in client.get(published.get_absolute_url()).content.decode()


def test_only_organizers_see_the_progress(client, stranger, published, api_joe, api_anon):
    url = stage_url(published, "publication-progress")
    answer = client.get(url)
    assert answer.status_code == 302 and reverse("login") in answer["Location"]
    client.force_login(stranger)
    assert client.get(url).status_code == 403
    assert api_joe.get(api_url(published)).status_code == 403
    assert api_anon.get(api_url(published)).status_code == 403
    assert api_joe.get(reverse("api-stage-publication", args=[999999])).status_code == 404
    assert client.get(reverse("publication-progress", args=["nope", 1])).status_code == 404


def test_an_unpublished_stage_has_no_publication_to_follow(org_client, api_org, drawn):
    answer = org_client.get(stage_url(drawn, "publication-progress"), follow=True)
    assert answer.redirect_chain[-1][0] == stage_url(drawn, "stage-manage")
    assert "not published yet" in answer.content.decode()
    refused = api_org.get(api_url(drawn))
    assert refused.status_code == 409 and refused.json()["code"] == "wrong_status"
