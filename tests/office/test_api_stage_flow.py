"""A stage's whole life through the API: import, close, draw, follow the job, publish."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.entrants.models import Entrant
from apps.entrants.services import engine_entrants
from apps.groups.models import Group
from apps.office.draw import draw_settings
from apps.silli.draw import draw_stage
from apps.stages.models import Stage
from tests.worlds.api import *  # noqa: F403 (the fixtures of this world)

BAD_FILE = "code,name,nation\nA1,Ann,ITA\nA2,,GER\nA1,Cy,FRA\nA4,Dee,F\n"


@pytest.mark.django_db(transaction=True)
def test_import_close_draw_publish_and_the_draw_is_the_engines(org, cup, entrants_file):
    stage = cup.first_stage
    base = f"/api/stages/{stage.pk}"

    bad = org.post(f"{base}/entrants/import/", BAD_FILE, content_type="text/csv")
    assert bad.status_code == 400
    assert bad.json()["code"] == "bad_rows"
    assert [d["line"] for d in bad.json()["details"]] == [3, 4, 5]
    assert all(d["message"] for d in bad.json()["details"])
    assert "nothing was imported" in bad.json()["message"]
    assert not Entrant.objects.exists()

    preview = org.post(f"{base}/entrants/import/?dry_run=1", entrants_file, content_type="text/csv")
    assert preview.status_code == 200
    body = preview.json()
    assert body["count"] == 300
    assert sum(count for _, count in body["nations"]) == 300
    assert body["nations"] == sorted(body["nations"], key=lambda nc: (-nc[1], nc[0]))
    assert body["multi_entry_persons"] >= 0
    assert not Entrant.objects.exists()

    imported = org.post(f"{base}/entrants/import/", entrants_file, content_type="text/csv")
    assert imported.status_code == 201
    assert imported.json() == {"imported": 300}

    closed = org.post(f"{base}/close-registration/")
    assert closed.status_code == 200
    assert closed.json()["status"] == "registration_closed"
    assert closed.json()["entrant_count"] == 300
    assert len(closed.json()["entrants_digest"]) == 64

    started = org.post(f"{base}/draw/", {"seed": "Lotto 17"}, format="json")
    assert started.status_code == 202
    job = started.json()
    assert job["seed"] == "Lotto 17"
    assert job["progress_url"] == f"/api/draw-jobs/{job['job']}/"
    assert started["Location"] == job["progress_url"]

    progress = org.get(job["progress_url"]).json()
    assert progress["status"] == "succeeded", progress["error"]
    assert progress["percent"] == 100
    assert progress["done_groups"] == progress["total_groups"] == 3

    drawn = org.get(f"{base}/").json()
    assert drawn["status"] == "drawn" and drawn["group_count"] == 3 and drawn["seed"] == "Lotto 17"
    stage.refresh_from_db()
    expected = draw_stage(engine_entrants(stage), draw_settings(stage), "Lotto 17")
    assert drawn["draw_digest"] == expected.digest == progress["digest"]

    published = org.post(f"{base}/publish/")
    assert published.status_code == 200
    assert published.json()["status"] == "published"
    assert published.json()["published_at"]

    redraw = org.post(f"{base}/draw/", {"seed": "again"}, format="json")
    assert redraw.status_code == 409
    assert redraw.json()["code"] == "wrong_status"
    assert "published" in redraw.json()["message"]
    stage.refresh_from_db()
    assert stage.seed == "Lotto 17" and stage.status == Stage.Status.PUBLISHED


def test_a_generated_seed_is_returned_and_becomes_the_stages_seed(
    org, draft_stage, organizer, django_capture_on_commit_callbacks
):
    org.post(f"/api/stages/{draft_stage.pk}/close-registration/")
    with django_capture_on_commit_callbacks(execute=True):
        started = org.post(
            f"/api/stages/{draft_stage.pk}/draw/", {"generate_seed": True}, format="json"
        )
    assert started.status_code == 202
    seed = started.json()["seed"]
    assert seed.startswith("CC-")
    draft_stage.refresh_from_db()
    assert draft_stage.seed == seed


def test_a_draw_needs_a_seed_and_not_two(org, draft_stage):
    org.post(f"/api/stages/{draft_stage.pk}/close-registration/")
    empty = org.post(f"/api/stages/{draft_stage.pk}/draw/", {}, format="json")
    assert empty.status_code == 400
    assert empty.json()["code"] == "invalid_input"
    assert "seed" in empty.json()["message"]
    both = org.post(
        f"/api/stages/{draft_stage.pk}/draw/",
        {"seed": "x", "generate_seed": True},
        format="json",
    )
    assert both.status_code == 400
    assert both.json()["details"][0]["message"] == "Send either a seed or generate_seed, not both."


@pytest.mark.parametrize(
    ("seed", "reason"),
    [("x" * 201, "longer than 200 characters"), ("Lotto\t17", "control characters")],
    ids=["too-long", "nul"],
)
def test_a_seed_too_long_or_with_control_characters_is_refused_and_nothing_starts(
    org, draft_stage, seed, reason
):
    org.post(f"/api/stages/{draft_stage.pk}/close-registration/")
    refused = org.post(f"/api/stages/{draft_stage.pk}/draw/", {"seed": seed}, format="json")
    assert refused.status_code == 400
    assert reason in refused.json()["message"]
    draft_stage.refresh_from_db()
    assert draft_stage.seed == "" and not draft_stage.draw_jobs.exists()


def test_the_import_reads_a_multipart_file_or_json(org, cup, entrants_file):
    stage = cup.first_stage
    rows = entrants_file.splitlines(keepends=True)
    first, second = "".join(rows[:101]), "".join(rows[:1] + rows[101:])
    upload = org.post(
        f"/api/stages/{stage.pk}/entrants/import/",
        {"file": SimpleUploadedFile("entrants.csv", first.encode(), "text/csv")},
        format="multipart",
    )
    assert upload.status_code == 201, upload.json()
    assert upload.json() == {"imported": 100}
    as_json = org.post(f"/api/stages/{stage.pk}/entrants/import/", {"csv": second}, format="json")
    assert as_json.status_code == 201
    assert as_json.json() == {"imported": 200}
    assert stage.entries.count() == 300


def test_an_import_without_a_csv_says_how_to_send_one(org, cup):
    answer = org.post(f"/api/stages/{cup.first_stage.pk}/entrants/import/", {}, format="json")
    assert answer.status_code == 400
    assert answer.json()["details"][0]["field"] == "csv"
    assert "text/csv" in answer.json()["message"]


def test_a_file_that_is_not_utf8_is_refused_with_a_reason(org, cup):
    answer = org.post(
        f"/api/stages/{cup.first_stage.pk}/entrants/import/",
        "code,name,nation\nA1,Müller,GER\n".encode("latin-1"),
        content_type="text/csv",
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_input"
    assert "UTF-8" in answer.json()["message"]


def test_reopening_registration_lets_the_organizer_import_again(org, draft_stage):
    base = f"/api/stages/{draft_stage.pk}"
    assert org.post(f"{base}/close-registration/").status_code == 200
    closed_import = org.post(
        f"{base}/entrants/import/", "code,name,nation\nZ1,Zed,ITA\n", content_type="text/csv"
    )
    assert closed_import.status_code == 409
    reopened = org.post(f"{base}/reopen-registration/")
    assert reopened.status_code == 200
    assert reopened.json()["status"] == "draft"
    assert reopened.json()["entrants_digest"] == ""
    again = org.post(
        f"{base}/entrants/import/", "code,name,nation\nZ1,Zed,ITA\n", content_type="text/csv"
    )
    assert again.status_code == 201


def test_the_export_is_the_entrant_csv(org, draft_stage, entrants_file):
    answer = org.get(f"/api/stages/{draft_stage.pk}/entrants.csv", HTTP_ACCEPT="text/csv")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/csv")
    assert "attachment" in answer["Content-Disposition"]
    assert answer.content.decode() == entrants_file


def test_publishing_an_undrawn_stage_is_a_conflict(org, draft_stage):
    answer = org.post(f"/api/stages/{draft_stage.pk}/publish/")
    assert answer.status_code == 409
    assert answer.json() == {
        "code": "wrong_status",
        "message": "Cannot publish: the stage is registration open.",
        "details": [],
    }
    assert Group.objects.count() == 0
