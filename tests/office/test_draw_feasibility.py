"""Settings that cannot be drawn are found before the draw (issue 27, item 2): the stage form
and API warn, closing registration and starting the draw refuse with a sentence naming the
nearest workable settings, the division draws around a size without a formula, and a failed
draw's page never offers a retry that cannot succeed."""

import pytest
from django.urls import reverse
from django.utils import translation

from apps.core.errors import ActionError, ErrorCode
from apps.entrants.services import close_registration, import_entrants
from apps.office.draw import draw_settings, prepare
from apps.office.services import start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import DrawJob, Stage
from apps.stages.services import update_stage

from .test_pages import stage_form

pytestmark = pytest.mark.django_db

SIXTY = (
    "10 games per player need groups of at least 69 (72 and 73 have no formula either); the "
    "stage has 60 entrants. Nearest workable: 8 games per player (1 group of 60); or 69 "
    "entrants (1 group of 69); or a round robin (1 group of 60, 59 games each)."
)
FORTY = (
    "8 games per player need groups of at least 46 (47 has no formula either): with 200 "
    "entrants the draw makes 4 groups of 50, not 5 groups of 40. Set the smallest group to 50 "
    "to ask for that."
)


def register(stage: Stage, organizer, count: int) -> Stage:
    csv = entrants_csv(make_entrants(count, f"feasible-{count}", multi_entry_share=0))
    import_entrants(organizer, stage, csv)
    return stage


@pytest.fixture
def sixty(preliminary, organizer):
    """The preliminary (10 games, groups of at least 100) with 60 entrants: no draw."""
    return register(preliminary, organizer, 60)


@pytest.fixture
def forty(preliminary, organizer):
    """200 entrants, 8 games, groups of at least 40: 5 × 40 has no formula, 4 × 50 has."""
    update_stage(organizer, preliminary, games_per_player_override=8, min_group_size=40)
    return register(preliminary, organizer, 200)


def stale(stage: Stage) -> Stage:
    """Registration closed before the check existed (nothing else closes it now)."""
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.REGISTRATION_CLOSED)
    stage.refresh_from_db()
    return stage


# ---------------------------------------------------------------------------
# Closing registration and starting the draw: refused, with the sentence
# ---------------------------------------------------------------------------


def test_closing_registration_is_refused_with_the_nearest_workable_settings(sixty, organizer):
    with pytest.raises(ActionError) as refused:
        close_registration(organizer, sixty)
    assert refused.value.code == ErrorCode.DRAW_IMPOSSIBLE
    assert refused.value.message == SIXTY
    kinds = [(s["kind"], s["value"]) for s in refused.value.details[0]["suggestions"]]
    assert kinds == [("games", 8), ("entrants", 69), ("round_robin", 59)]
    sixty.refresh_from_db()
    assert sixty.status == Stage.Status.DRAFT and not sixty.entrants_digest


def test_the_api_refuses_closing_with_422_and_the_suggestions(sixty, api_org):
    answer = api_org.post(reverse("api-stage-close-registration", args=[sixty.pk]))
    assert answer.status_code == 422
    body = answer.json()
    assert body["code"] == "draw_impossible" and body["message"] == SIXTY
    assert body["details"][0]["suggestions"][0] == {
        "kind": "games",
        "value": 8,
        "group_sizes": [60],
    }


def test_the_page_refuses_closing_with_the_sentence(client, organizer, sixty):
    client.force_login(organizer)
    answer = client.post(reverse("stage-close", args=[sixty.tournament.slug, 1]), follow=True)
    assert SIXTY in answer.content.decode()
    sixty.refresh_from_db()
    assert sixty.status == Stage.Status.DRAFT


def test_the_sentence_is_italian_for_an_italian_reader(sixty, organizer):
    with translation.override("it"), pytest.raises(ActionError) as refused:
        close_registration(organizer, sixty)
    said = refused.value.message
    assert said.startswith("10 partite per giocatore richiedono gironi di almeno 69"), said
    assert "8 partite per giocatore (1 girone da 60)" in said


def test_the_fixed_number_of_games_is_enough(sixty, organizer):
    """The first suggestion, taken: 8 games draw the 60 in one group."""
    update_stage(organizer, sixty, games_per_player_override=8)
    assert close_registration(organizer, sixty).status == Stage.Status.REGISTRATION_CLOSED


def test_a_draw_that_cannot_succeed_is_not_started(sixty, organizer):
    stage = stale(sixty)
    with pytest.raises(ActionError) as refused:
        start_draw(organizer, stage, "any seed")
    assert refused.value.code == ErrorCode.DRAW_IMPOSSIBLE and refused.value.message == SIXTY
    assert not stage.draw_jobs.exists()


# ---------------------------------------------------------------------------
# The division around a size without a formula; the warnings
# ---------------------------------------------------------------------------


def test_groups_of_forty_with_eight_games_are_drawn_as_four_of_fifty(
    forty, organizer, capture, client
):
    stage = close_registration(organizer, forty)
    client.force_login(organizer)
    manage = client.get(reverse("stage-manage", args=[stage.tournament.slug, 1])).content
    assert FORTY in manage.decode()
    with capture(execute=True):
        start_draw(organizer, stage, "forty seed")
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    assert sorted(g.size for g in stage.groups.all()) == [50, 50, 50, 50]


def test_the_api_says_what_the_draw_will_make(forty, api_org):
    answer = api_org.get(reverse("api-stage-detail", args=[forty.pk]))
    assert answer.json()["draw_check"] == {
        "status": "adjusted",
        "group_sizes": [50, 50, 50, 50],
        "message": FORTY,
    }
    answer = api_org.patch(
        reverse("api-stage-detail", args=[forty.pk]), {"min_group_size": 50}, format="json"
    )
    assert answer.status_code == 200
    assert answer.json()["draw_check"] == {
        "status": "ok",
        "group_sizes": [50, 50, 50, 50],
        "message": None,
    }
    answer = api_org.patch(
        reverse("api-stage-detail", args=[forty.pk]),
        {"games_per_player": 10, "min_group_size": 100},
        format="json",
    )
    assert answer.json()["draw_check"]["status"] == "ok"  # 2 groups of 100


def test_the_api_notes_a_smallest_group_without_formula_before_any_entrant(preliminary, api_org):
    answer = api_org.patch(
        reverse("api-stage-detail", args=[preliminary.pk]),
        {"games_per_player": 8, "min_group_size": 40},
        format="json",
    )
    assert answer.status_code == 200
    check = answer.json()["draw_check"]
    assert check["status"] == "note"
    assert check["message"] == (
        "8 games per player need groups of at least 46 (47 has no formula either): a group of "
        "40 cannot be drawn, so the draw makes fewer, larger groups."
    )


def test_the_settings_page_warns_when_saving_and_when_showing(client, organizer, preliminary):
    register(preliminary, organizer, 200)
    client.force_login(organizer)
    url = reverse("stage-edit", args=[preliminary.tournament.slug, 1])
    answer = client.post(
        url, stage_form(preliminary, min_group_size=40, games_per_player_override=8), follow=True
    )
    assert answer.status_code == 200
    assert FORTY in answer.content.decode()  # the message after saving
    preliminary.refresh_from_db()
    assert preliminary.min_group_size == 40  # a warning: saved
    html = client.get(url).content.decode()
    assert 'data-role="draw-warning"' in html and FORTY in html


# ---------------------------------------------------------------------------
# A failed draw's page
# ---------------------------------------------------------------------------


def failed_job(stage: Stage, failure: str, error: str = "It failed.") -> DrawJob:
    return DrawJob.objects.create(
        stage=stage,
        seed="the seed",
        draw_settings=draw_settings(stage).as_dict(),
        status=DrawJob.Status.FAILED,
        failure=failure,
        error=error,
    )


def failure_page(client, organizer, job: DrawJob) -> str:
    client.force_login(organizer)
    stage = job.stage
    url = reverse("draw-progress", args=[stage.tournament.slug, stage.order, job.pk])
    return client.get(url).content.decode()


def test_the_division_marks_a_failure_of_the_settings(sixty, api_org):
    stage = stale(sixty)
    job = DrawJob.objects.create(
        stage=stage, seed="s", draw_settings=draw_settings(stage).as_dict()
    )
    assert prepare(job.pk) == []
    job.refresh_from_db()
    assert job.status == DrawJob.Status.FAILED and job.failure == DrawJob.Failure.SETTINGS
    assert "at least 69" in job.error
    progress = api_org.get(reverse("api-draw-job", args=[job.pk])).json()
    assert progress["failure"] == "settings"


def test_a_failure_of_the_settings_offers_to_change_them_not_to_retry(client, organizer, sixty):
    html = failure_page(client, organizer, failed_job(stale(sixty), DrawJob.Failure.SETTINGS))
    assert "Retry with the same seed" not in html
    assert SIXTY in html
    assert "Reopen registration to change the settings" in html
    assert reverse("stage-edit", args=[sixty.tournament.slug, 1]) in html


def test_an_engine_failure_offers_another_seed(client, organizer, closed):
    html = failure_page(client, organizer, failed_job(closed, DrawJob.Failure.ENGINE))
    assert "Retry with the same seed" not in html
    assert "Draw with a new seed" in html and "?generate=1#draw" in html


def test_a_stopped_draw_may_be_retried_with_the_same_seed(client, organizer, closed):
    html = failure_page(client, organizer, failed_job(closed, DrawJob.Failure.OTHER))
    assert "Retry with the same seed" in html


def test_a_failed_job_of_settings_now_impossible_is_said_so_whatever_it_recorded(
    client, organizer, sixty
):
    """A job that failed before failures were told apart: the stage's settings decide."""
    html = failure_page(client, organizer, failed_job(stale(sixty), DrawJob.Failure.OTHER))
    assert "Retry with the same seed" not in html and SIXTY in html
