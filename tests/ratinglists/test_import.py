"""Importing a rating list: all rows or none, every bad row listed with its line and reason;
a big file as a job with a progress address (202 in the API); who may import."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.ratinglists.models import RatingList, RatingListEntry, RatingListImportJob
from apps.ratinglists.services import import_rating_list, start_rating_list_import
from apps.stages.services import create_tournament

from .conftest import LIST_DATE, example_list_csv

GOOD = (
    "id,name,federation,rating,games,title\n"
    "100,Ahlberg Anna,SWE,2480,250,SIM\n"
    "101,Brandt Bernd,GER,2415,180,\n"
    "102,Costa Chiara,ITA,,0,\n"
)

BAD = (
    "id,name,federation,rating,games,title\n"
    "100,Ahlberg Anna,SWE,2480,250,SIM\n"
    "1 01,Brandt Bernd,GER,2415,180,\n"  # line 3: a space in the ID
    "102,Costa Chiara,XYZ,2390,120,\n"  # line 4: no such federation
    "103,Dvořák Daniel,CZE,twelve,90,\n"  # line 5: the rating
    "104,Eriksen Erik,DEN,2310,-1,\n"  # line 6: the games
    "100,Ahlberg Again,SWE,2480,250,\n"  # line 7: the ID again
    "105,=cmd,ITA,2000,1,\n"  # line 8: a formula
    "106,Gallo,ITA,2230\n"  # line 9: too few fields
)


def test_a_good_list_is_imported_whole(organizer):
    outcome = import_rating_list(
        organizer, name="ICCF list 2026/4", list_date=LIST_DATE, text=GOOD, source="ICCF"
    )
    listed = outcome.rating_list
    assert listed is not None and listed.entry_count == 3 and listed.uploaded_by == organizer
    rows = {e.person: e for e in listed.entries.all()}
    assert rows["100"].rating == 2480 and rows["100"].games == 250 and rows["100"].title == "SIM"
    assert rows["102"].rating is None and rows["102"].federation == "ITA"
    assert outcome.checked.preview()["unrated"] == 1
    event = AuditEvent.objects.get(action="rating_list.imported")
    assert event.data["rows"] == 3 and event.data["rating_list"] == listed.pk


def test_every_bad_row_is_listed_and_nothing_is_written(organizer):
    with pytest.raises(ActionError) as refused:
        import_rating_list(organizer, name="Bad", list_date=LIST_DATE, text=BAD)
    assert refused.value.code == ErrorCode.BAD_ROWS
    lines = [d["line"] for d in refused.value.details]
    assert lines == [3, 4, 5, 6, 7, 8, 9]
    reasons = {d["line"]: d["message"] for d in refused.value.details}
    assert "XYZ" in reasons[4] and "twelve" in reasons[5] and "-1" in reasons[6]
    assert "line 2" in reasons[7] and "field" in reasons[9]
    assert not RatingList.objects.exists() and not RatingListEntry.objects.exists()


def test_a_bad_header_is_refused(organizer):
    with pytest.raises(ActionError) as refused:
        import_rating_list(organizer, name="X", list_date=LIST_DATE, text="id,name,elo\n1,A,2000\n")
    assert refused.value.details[0]["line"] == 1
    assert "elo" in refused.value.details[0]["message"]
    assert "federation" in refused.value.details[0]["message"]


def test_a_dry_run_writes_nothing(organizer):
    outcome = import_rating_list(organizer, name="X", list_date=LIST_DATE, text=GOOD, dry_run=True)
    assert outcome.rating_list is None and outcome.checked.rows == 3
    assert not RatingList.objects.exists()


def test_the_same_list_twice_is_a_conflict(organizer):
    import_rating_list(organizer, name="ICCF list 2026/4", list_date=LIST_DATE, text=GOOD)
    with pytest.raises(ActionError) as refused:
        import_rating_list(organizer, name="ICCF list 2026/4", list_date=LIST_DATE, text=GOOD)
    assert refused.value.code == ErrorCode.CONFLICT
    assert RatingListEntry.objects.count() == 3


def test_who_may_import(stranger, staff, db):
    with pytest.raises(ActionError) as refused:
        import_rating_list(stranger, name="X", list_date=LIST_DATE, text=GOOD)
    assert refused.value.code == ErrorCode.PERMISSION_DENIED
    assert import_rating_list(staff, name="X", list_date=LIST_DATE, text=GOOD).rating_list


def test_an_organizer_of_any_tournament_may_import(stranger, staff):
    cup = create_tournament(staff, name="Some Cup", slug="some-cup")
    cup.organizers.add(stranger)
    assert import_rating_list(stranger, name="X", list_date=LIST_DATE, text=GOOD).rating_list


# ---------------------------------------------------------------------------
# The job
# ---------------------------------------------------------------------------


def big_file(rows: int, bad_lines: dict[int, str] | None = None) -> str:
    lines = ["id,name,federation,rating,games,title"]
    for n in range(rows):
        lines.append(f"P{n},Player {n},ITA,{1800 + n % 700},{n % 60},")
    for line, text in (bad_lines or {}).items():
        lines[line - 1] = text
    return "\n".join(lines) + "\n"


def api_post(user, text: str, **query):
    client = APIClient()
    client.force_authenticate(user)
    params = {"name": "Big list", "list_date": "2026-10-01", **query}
    url = reverse("api-rating-lists") + "?" + "&".join(f"{k}={v}" for k, v in params.items())
    return client.post(url, text, content_type="text/csv")


def test_a_big_file_is_imported_by_a_job_followed_at_its_address(
    organizer, settings, django_capture_on_commit_callbacks
):
    settings.RATING_LIST_IMPORT_JOB_ROWS = 10
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_post(organizer, big_file(25))
    assert answer.status_code == 202
    assert answer["Location"] == answer.json()["url"]
    client = APIClient()
    client.force_authenticate(organizer)
    job = client.get(answer.json()["url"]).json()
    assert job["status"] == "succeeded" and job["percent"] == 100
    assert job["done_rows"] == job["total_rows"] == 25
    listed = RatingList.objects.get(pk=job["rating_list"])
    assert listed.entries.count() == 25 and listed.entry_count == 25
    assert AuditEvent.objects.filter(action="rating_list.import_started").count() == 1


def test_a_job_with_bad_rows_fails_listing_every_one_and_writes_nothing(
    organizer, settings, django_capture_on_commit_callbacks
):
    settings.RATING_LIST_IMPORT_JOB_ROWS = 10
    text = big_file(25, {5: "P3,Dup,ITA,2000,1,", 20: "Q,Name,ITA,99999,1,"})
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_post(organizer, text)
    assert answer.status_code == 202
    job = RatingListImportJob.objects.get()
    assert job.status == "failed" and job.csv == ""
    assert [d["line"] for d in job.details] == [20]  # line 5 replaced P3 itself: still unique
    assert not RatingList.objects.exists() and not RatingListEntry.objects.exists()
    assert AuditEvent.objects.filter(action="rating_list.import_failed").count() == 1


def test_a_dry_run_job_keeps_the_preview(organizer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start_rating_list_import(
            organizer,
            name="Big",
            list_date=datetime.date(2026, 1, 1),
            text=big_file(12),
            dry_run=True,
        )
    job.refresh_from_db()
    assert job.status == "succeeded" and job.result["rows"] == 12 and job.rating_list is None
    assert not RatingList.objects.exists()


def test_the_api_imports_a_small_file_at_once(organizer):
    answer = api_post(organizer, example_list_csv())
    assert answer.status_code == 201
    assert answer.json()["rating_list"]["entries"] == 10
    assert answer.json()["preview"]["unrated"] == 1
    again = api_post(organizer, example_list_csv())
    assert again.status_code == 409


def test_the_api_lists_every_bad_row(organizer):
    answer = api_post(organizer, BAD)
    assert answer.status_code == 400
    assert answer.json()["code"] == "bad_rows"
    assert [d["line"] for d in answer.json()["details"]] == [3, 4, 5, 6, 7, 8, 9]


def test_the_page_imports_and_shows_bad_rows(client, organizer):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(organizer)
    url = reverse("rating-lists")
    bad = client.post(
        url,
        {"name": "L", "list_date": "2026-10-01", "file": SimpleUploadedFile("l.csv", BAD.encode())},
    )
    assert bad.status_code == 400
    assert b"Nothing was imported" in bad.content and not RatingList.objects.exists()
    good = client.post(
        url,
        {
            "name": "L",
            "list_date": "2026-10-01",
            "file": SimpleUploadedFile("l.csv", GOOD.encode()),
        },
    )
    listed = RatingList.objects.get()
    assert good.status_code == 302 and good["Location"] == reverse("rating-list", args=[listed.pk])
    page = client.get(good["Location"])
    assert b"Ahlberg Anna" in page.content
