"""The format lab on a stage (issue 16): an organizer compares candidate formats on the
stage's entrants — a Celery run with a progress bar, then a table and charts — and applies
the one chosen to the stage's settings."""

import json
import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent
from apps.entrants.services import import_entrants
from apps.office.lab import runs, tasks
from apps.office.lab.candidates import CANDIDATES as CANDIDATE_CLASSES
from apps.office.lab.candidates import (
    Problems,
    RoundRobinCandidate,
    candidate_from_json,
    parse_candidate,
)
from apps.office.models import LabRun
from apps.silli.entrants import entrants_csv
from apps.silli.formats import Format
from apps.silli.swiss.acceleration import Acceleration
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import update_stage

pytestmark = pytest.mark.django_db

CANDIDATES = [
    {
        "format": "silli",
        "group_size": 20,
        "games_per_player": 4,
        "qualify_rule": "top_per_group",
        "qualify_value": 20,
        "qualify_relative": True,
    },
    {"format": "round_robin", "group_size": 10, "qualify_rule": "top_overall", "qualify_value": 8},
    {"format": "swiss", "rounds": 5, "acceleration": "baku"},
]


QUALIFY_KEYS = ["qualify_rule", "qualify_value", "qualify_relative"]


@pytest.fixture
def lab_stage(preliminary, organizer):
    """The cup's preliminary, registration open, with 40 rated entrants."""
    import_entrants(organizer, preliminary, entrants_csv(make_entrants(40, "lab")))
    return preliminary


def start(client, stage, django_capture_on_commit_callbacks, **body):
    body.setdefault("candidates", CANDIDATES)
    body.setdefault("tournaments", 10)
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(f"/api/stages/{stage.pk}/lab-runs/", body, format="json")


def test_a_run_completes_with_results_for_each_candidate(
    api_org, lab_stage, django_capture_on_commit_callbacks
):
    answer = start(api_org, lab_stage, django_capture_on_commit_callbacks, seed="lab seed")
    assert answer.status_code == 202, answer.json()
    body = answer.json()
    assert answer["Location"] == f"/api/lab-runs/{body['id']}/"
    progress = api_org.get(answer["Location"]).json()
    assert progress["status"] == "succeeded"
    assert (progress["done"], progress["total"], progress["percent"]) == (30, 30, 100)
    assert progress["seed"] == "lab seed"
    results = progress["results"]
    assert len(results) == 3
    for report in results:
        assert report["tournaments"] == 10
        assert report["players"] == 40
        assert set(report["share_rating_diff_over"]) >= {"200", "400", "800"}
        assert len(report["score_by_rank"]) == 40
    silli, robin, swiss = results
    assert silli["qualify"] == "top:20%" and robin["qualify"] == "overall:8"
    assert silli["expectation"] is None and swiss["expectation"] is not None
    assert swiss["format"]["acceleration"] == "baku"
    assert silli["calendar"] == {"games_per_player": 4}
    assert [c["label"] for c in progress["candidates"]] == [
        "Silli, groups of at least 20, 4 games per player, top 20 % of each group",
        "Round robin, groups of at least 10, top 8 overall",
        "Swiss, 5 rounds, Baku acceleration",
    ]


@pytest.mark.parametrize(("given", "kept"), [(20, "20"), ("20", "20"), ("12.50", "12.5")])
def test_a_qualification_value_is_kept_as_people_write_it(given, kept):
    """Not "2E+1": the value is shown in the candidate's label."""
    candidates = [{**CANDIDATES[0], "qualify_value": given}, CANDIDATES[2]]
    clean, _, _ = runs.check_request(candidates, 10, "s", 40)
    assert clean[0].to_json()["qualify_value"] == kept
    assert f"top {kept} % of each group" in clean[0].label
    stored_before = {**clean[0].to_json(), "qualify_value": "2E+1"}
    assert "top 20 % of each group" in candidate_from_json(stored_before).label


def test_the_stage_formats_are_the_engines():
    """``Stage.Format`` (the model's choices) has the engine's formats, in the same order."""
    assert [(f.name, f.value) for f in Stage.Format] == [(f.name, f.value) for f in Format]
    assert set(CANDIDATE_CLASSES) == set(Format)


@pytest.mark.parametrize("raw", CANDIDATES, ids=[c["format"] for c in CANDIDATES])
def test_a_candidate_is_stored_as_json_and_read_back(raw):
    problems = Problems()
    candidate = parse_candidate(raw, 0, 40, problems)
    assert not problems.details
    stored = json.loads(json.dumps(candidate.to_json()))
    assert stored["format"] == raw["format"] and list(stored)[-3:] == QUALIFY_KEYS
    assert candidate_from_json(stored) == candidate


def test_a_stored_candidate_without_its_optional_settings_reads_with_their_defaults():
    robin = candidate_from_json({"format": "round_robin", "group_size": 12})
    assert robin == RoundRobinCandidate(12) and robin.qualifying.lab_rule() is None
    assert robin.label == "Round robin, groups of at least 12"
    swiss = candidate_from_json({"format": "swiss", "rounds": 5})
    assert swiss.acceleration is Acceleration.NONE and swiss.label == "Swiss, 5 rounds"


def test_the_run_moves_in_chunks_and_a_repeated_task_counts_nothing_twice(organizer, lab_stage):
    run = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 20, "chunks")
    # Not committed, so not queued: advance by hand, one chunk at a time.
    assert not runs.advance(run.pk, seconds=0)
    run.refresh_from_db()
    assert run.status == LabRun.Status.RUNNING
    assert 0 < run.done < run.total
    first = run.done
    while not runs.advance(run.pk, seconds=0):
        run.refresh_from_db()
        assert run.done > first or run.done == run.total
    run.refresh_from_db()
    assert run.status == LabRun.Status.SUCCEEDED and run.done == 40
    results = run.results
    assert runs.advance(run.pk)  # a second delivery: nothing changes
    run.refresh_from_db()
    assert run.results == results
    # The same seed gives the same figures, however the run was cut.
    again = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 20, "chunks")
    assert runs.advance(again.pk, seconds=600)
    again.refresh_from_db()
    assert again.results == results


@pytest.fixture
def no_worker(never_run):
    """Queued lab tasks go nowhere."""
    return never_run(tasks.run_lab)


def test_a_run_whose_task_was_lost_is_queued_again_once_and_finishes(
    organizer, lab_stage, no_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 10, "lost")
    assert no_worker == [run.pk]  # queued, never run: the task was lost
    assert LabRun.stalled() == ([], [])  # too early to tell
    LabRun.objects.filter(pk=run.pk).update(updated_at=timezone.now() - timedelta(minutes=3))
    assert tasks.resume_stalled_lab_runs() == {"resumed": 1, "stopped": 0}
    assert no_worker == [run.pk, run.pk]
    # The next sweep, a minute later, leaves it to the task just queued.
    later = timezone.now() + timedelta(minutes=1)
    assert LabRun.stalled(later) == ([], [])
    no_worker.clear()
    while not tasks.run_lab.run(run.pk):  # a worker runs it (and what it queues)
        assert no_worker.pop() == run.pk
    run.refresh_from_db()
    assert run.status == LabRun.Status.SUCCEEDED and run.done == run.total


def test_a_run_past_its_time_limit_is_stopped(organizer, lab_stage, no_worker):
    run = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 10, "late")
    long_ago = timezone.now() - LabRun.TIME_LIMIT - timedelta(minutes=1)
    LabRun.objects.filter(pk=run.pk).update(created_at=long_ago, updated_at=long_ago)
    assert LabRun.stalled() == ([], [run.pk])
    run.refresh_from_db()
    assert run.status == LabRun.Status.FAILED and "longer than 60 minutes" in run.error
    assert tasks.run_lab.run(run.pk)  # its task, delivered late, does nothing
    run.refresh_from_db()
    assert run.status == LabRun.Status.FAILED and not run.results


def test_a_broker_gone_between_parts_leaves_the_run_to_the_sweep(organizer, lab_stage, monkeypatch):
    run = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 20, "broker")

    def broker_away(run_id):
        raise OperationalError("Connection refused")

    monkeypatch.setattr(tasks.run_lab, "delay", broker_away)
    monkeypatch.setattr(runs, "advance", lambda run_id: False)  # a part done, more to do
    assert tasks.run_lab.run(run.pk) is False
    run.refresh_from_db()
    assert run.status == LabRun.Status.PENDING and not run.error  # not failed: resumable


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"candidates": CANDIDATES[:1]}, {"candidates"}),
        ({"candidates": CANDIDATES + CANDIDATES[:2]}, {"candidates"}),
        (
            {"candidates": [{"format": "silli", "group_size": 10, "games_per_player": 10}] * 2},
            {"candidates.0.group_size", "candidates.1.group_size"},
        ),
        ({"tournaments": 0}, {"tournaments"}),
        (
            {
                "candidates": [{"format": "round_robin", "group_size": 1}, {"format": "chess960"}],
                "tournaments": 5000,
            },
            {"candidates.0.group_size", "candidates.1.format", "tournaments"},
        ),
        ({"candidates": "silli"}, {"candidates"}),
        ({"seed": "lab\x00seed"}, {"seed"}),
        ({"seed": "s" * 201}, {"seed"}),
    ],
    ids=[
        "one",
        "five",
        "group-too-small",
        "no-tournaments",
        "several",
        "not-a-list",
        "seed-nul",
        "seed-too-long",
    ],
)
def test_bad_input_is_refused_listing_every_problem_and_creates_nothing(
    api_org, lab_stage, django_capture_on_commit_callbacks, body, fields
):
    answer = start(api_org, lab_stage, django_capture_on_commit_callbacks, **body)
    assert answer.status_code == 400
    error = answer.json()
    assert error["code"] == "invalid_input"
    assert {d["field"] for d in error["details"]} == fields
    assert all(d["message"] in error["message"] for d in error["details"])
    assert not LabRun.objects.exists()


def test_a_group_too_small_says_how_many_players_a_circle_needs(
    api_org, lab_stage, django_capture_on_commit_callbacks
):
    body = {"candidates": [{"format": "silli", "group_size": 10, "games_per_player": 10}] * 2}
    answer = start(api_org, lab_stage, django_capture_on_commit_callbacks, **body)
    assert "needs at least 60 players for 10 games" in answer.json()["message"]


def test_non_organizers_are_refused(
    api_joe, api_anon, lab_stage, organizer, django_capture_on_commit_callbacks
):
    for client in (api_joe, api_anon):
        answer = start(client, lab_stage, django_capture_on_commit_callbacks)
        assert answer.status_code == 403
    assert not LabRun.objects.exists()
    run = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 10, "x")
    for client in (api_joe, api_anon):
        assert client.get(f"/api/lab-runs/{run.pk}/").status_code == 403


def test_a_stage_whose_registration_is_closed_gets_no_run(
    api_org, closed, django_capture_on_commit_callbacks
):
    answer = start(api_org, closed, django_capture_on_commit_callbacks)
    assert answer.status_code == 409
    assert "registration is open" in answer.json()["message"]
    assert not LabRun.objects.exists()


def test_a_stage_without_entrants_is_told_to_import_them_first(
    api_org, preliminary, django_capture_on_commit_callbacks
):
    """Not a complaint about the candidates' rounds (which depend on the entrants)."""
    answer = start(api_org, preliminary, django_capture_on_commit_callbacks)
    assert answer.status_code == 409
    body = answer.json()
    assert "needs at least two" in body["message"] and "has 0, 0 rated" in body["message"]
    assert "rounds" not in body["message"]
    assert not LabRun.objects.exists()


def test_applying_a_candidate_sets_the_stage_and_is_audited(
    client, organizer, lab_stage, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.start_lab_run(organizer, lab_stage, CANDIDATES, 10, "apply")
    client.force_login(organizer)
    url = f"/t/setup-cup/s/1/lab/{run.pk}/"
    answer = client.post(url + "apply/2/")
    assert answer.status_code == 302 and answer["Location"] == url
    stage = Stage.objects.get(pk=lab_stage.pk)
    assert stage.format == Stage.Format.ROUND_ROBIN
    assert stage.min_group_size == 10 and not stage.double_round_robin
    assert (stage.qualify_rule, stage.qualify_value) == ("top_overall", 8)
    [event] = AuditEvent.objects.filter(action=Action.STAGE_UPDATED, stage_id=stage.pk)
    assert event.actor == organizer
    assert event.data["changes"]["format"] == ["silli", "round_robin"]
    assert event.data["changes"]["min_group_size"] == [100, 10]

    answer = client.post(url + "apply/1/")
    stage.refresh_from_db()
    assert (stage.format, stage.min_group_size, stage.games_per_player) == ("silli", 20, 4)
    assert (stage.qualify_rule, stage.qualify_relative) == ("top_per_group", True)

    # A Swiss candidate makes the stage a Swiss of its rounds and acceleration.
    answer = client.post(url + "apply/3/")
    stage.refresh_from_db()
    assert (stage.format, stage.swiss_rounds, stage.swiss_acceleration) == ("swiss", 5, "baku")
    assert stage.games_per_player_override is None

    # And back: a Silli candidate clears the Swiss settings (the round deadline too).
    update_stage(organizer, stage, swiss_round_days=10)
    client.post(url + "apply/1/")
    stage.refresh_from_db()
    assert (stage.format, stage.swiss_rounds, stage.swiss_acceleration) == ("silli", None, "none")
    assert stage.swiss_round_days is None


def test_applying_is_refused_once_registration_is_closed(
    client, organizer, lab_stage, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.start_lab_run(organizer, lab_stage, CANDIDATES, 10, "late")
    lab_stage.status = Stage.Status.REGISTRATION_CLOSED
    lab_stage.save()
    client.force_login(organizer)
    answer = client.post(f"/t/setup-cup/s/1/lab/{run.pk}/apply/2/", follow=True)
    assert "registration is open" in answer.content.decode()
    assert Stage.objects.get(pk=lab_stage.pk).format == "silli"


def test_a_finished_runs_page_shows_the_table_and_the_charts_data(
    client, organizer, lab_stage, django_capture_on_commit_callbacks
):
    client.force_login(organizer)
    manage = client.get("/t/setup-cup/s/1/manage/").content.decode()
    assert 'href="/t/setup-cup/s/1/lab/"' in manage
    form = client.get("/t/setup-cup/s/1/lab/")
    assert form.status_code == 200
    post = {
        "c1-format": "silli",
        "c1-group_size": "20",
        "c1-games_per_player": "4",
        "c2-format": "swiss",
        "c2-rounds": "5",
        "c2-acceleration": "none",
        "c3-format": "",
        "tournaments": "10",
        "seed": "page seed",
    }
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/t/setup-cup/s/1/lab/", post)
    run = LabRun.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/t/setup-cup/s/1/lab/{run.pk}/"
    page = client.get(answer["Location"])
    html = page.content.decode()
    assert page.status_code == 200
    assert "Mean rating difference of a game" in html
    assert "Apply these settings to the stage" in html
    assert run.form_sd == 85 and "players’ form ±85 points" in html
    table = {r["label"]: r["values"] for r in page.context["table"]}
    assert table["Games per tournament"] == ["80", "100"]  # 40 × 4 / 2, 40 × 5 / 2
    factor = next(r for r in page.context["table"] if r["label"] == "Expectation factor")
    swiss_factor = run.results[1]["expectation"]
    assert factor["values"] == ["—", f"{100 * swiss_factor:.1f} %"]  # Silli: no rounds
    assert "vendor/chart.js/chart.umd.min.js" in html
    chart = page.context["chart"]
    embedded = re.search(r'<script id="lab-chart-data"[^>]*>(.*?)</script>', html, re.S)
    data = json.loads(embedded.group(1))
    assert data == json.loads(json.dumps(chart))
    assert [c["label"] for c in data["candidates"]] == [
        "Silli, groups of at least 20, 4 games per player",
        "Swiss, 5 rounds",
    ]
    assert len(data["thresholds"]) == len(data["candidates"][0]["shares"]) == 13
    assert len(data["candidates"][1]["mean_score"]) == 40
    assert len(data["candidates"][0]["finish_top"]) == 10


def test_the_page_lists_what_is_wrong_and_starts_nothing(client, organizer, lab_stage):
    client.force_login(organizer)
    answer = client.post(
        "/t/setup-cup/s/1/lab/",
        {
            "c1-format": "silli",
            "c1-group_size": "10",
            "c1-games_per_player": "10",
            "tournaments": "0",
        },
    )
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "Give from 2 to 4 candidate formats" in html
    assert "number of tournaments must be a whole number from 10 to 2000" in html
    assert not LabRun.objects.exists()


def test_a_division_the_engine_cannot_make_is_refused_before_the_run(
    api_org, preliminary, organizer, django_capture_on_commit_callbacks
):
    # This synthetic field has a person with three entries: two groups cannot keep them apart.
    import_entrants(organizer, preliminary, entrants_csv(make_entrants(40, "lab-e2e")))
    answer = start(api_org, preliminary, django_capture_on_commit_callbacks)
    assert answer.status_code == 400
    assert answer.json()["details"][0]["field"] == "candidates.0.group_size"
    assert "entries of one person never share a group" in answer.json()["message"]
    assert not LabRun.objects.exists()


def test_a_lost_run_is_failed_when_the_next_one_starts_and_the_database_holds_one_unfinished(
    organizer, lab_stage, no_worker
):
    first = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 10, "first")
    with pytest.raises(ActionError, match="still going"):
        runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 10, "too soon")
    quiet = timezone.now() - timedelta(seconds=runs.STALE_SECONDS + 1)
    LabRun.objects.filter(pk=first.pk).update(updated_at=quiet)
    second = runs.start_lab_run(organizer, lab_stage, CANDIDATES[:2], 10, "second")
    first.refresh_from_db()
    assert first.status == LabRun.Status.FAILED and "lost" in first.error
    assert second.status == LabRun.Status.PENDING
    with pytest.raises(IntegrityError), transaction.atomic():
        LabRun.objects.create(stage=lab_stage, seed="x", tournaments=10, candidates=[])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_organizers_starting_a_run_at_once_make_one(organizer, lab_stage, no_worker):
    from tests.results.test_concurrency import race

    outcomes = race(
        *[
            lambda n=n: runs.start_lab_run(organizer, lab_stage, CANDIDATES, 10, f"s{n}")
            for n in (1, 2)
        ]
    )
    assert LabRun.objects.filter(stage=lab_stage).count() == 1
    refused = [o for o in outcomes if not isinstance(o, LabRun)]
    assert len(refused) == 1 and "still going" in refused[0].message


def test_a_runs_answer_matches_the_schema_made_from_its_typed_values(
    api_org, lab_stage, django_capture_on_commit_callbacks
):
    """The schema of a run's candidates and reports comes from their dataclasses; the answers
    (a running run's, a finished one's with every format and a qualification) fit it."""
    import requests
    import schemathesis
    from schemathesis.core.transport import Response

    document = api_org.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = schemathesis.openapi.from_dict(document.json())
    answers = {"POST": start(api_org, lab_stage, django_capture_on_commit_callbacks, seed="schema")}
    answers["GET"] = api_org.get(answers["POST"]["Location"])
    assert len(answers["GET"].json()["results"]) == 3
    for method, path in (("POST", "/api/stages/{id}/lab-runs/"), ("GET", "/api/lab-runs/{id}/")):
        answer = answers[method]
        response = Response(
            answer.status_code,
            {name: [value] for name, value in answer.headers.items()},
            answer.content,
            requests.Request(method, "http://testserver/").prepare(),
            0.0,
            False,
        )
        assert schema[path][method].validate_response(response) is not False
