"""A stage takes its entrants' ratings from a list (one UPDATE, audited, shown); the rating
report's page, CSV and API; the norm figures on the crosstable and in the API."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant
from apps.entrants.services import close_registration
from apps.ratinglists.models import StageRatingList
from apps.ratinglists.services import apply_rating_list, import_rating_list

from .conftest import LIST_DATE


def ratings(stage) -> dict[str, int | None]:
    return dict(Entrant.objects.filter(stage_entries__stage=stage).values_list("code", "rating"))


def test_applying_a_list_sets_each_entrants_rating_by_person(organizer, open_stage, example_list):
    assert set(ratings(open_stage).values()) == {1500}
    used = apply_rating_list(organizer, open_stage, example_list)
    now = ratings(open_stage)
    assert now["E1"] == 2480 and now["E9"] == 2060
    assert now["E10"] is None  # Jansen is on the list without a rating
    assert (used.matched, used.updated, used.missing) == (10, 10, 0)
    event = AuditEvent.objects.get(action="rating_list.applied")
    assert event.stage_id == open_stage.pk and event.data["rating_list"] == example_list.pk
    again = apply_rating_list(organizer, open_stage, example_list)
    assert again.updated == 0 and StageRatingList.objects.count() == 1


def test_entrants_not_on_the_list_keep_their_rating(organizer, open_stage):
    text = "id,name,federation,rating\nP1,Ahlberg,SWE,2480\nP2,Brandt,GER,1500\n"
    partial = import_rating_list(organizer, name="Small", list_date=LIST_DATE, text=text)
    used = apply_rating_list(organizer, open_stage, partial.rating_list)
    assert (used.matched, used.updated, used.missing) == (2, 1, 8)
    now = ratings(open_stage)
    assert now["E1"] == 2480 and now["E2"] == 1500 and now["E3"] == 1500


def test_a_closed_registration_refuses_a_list(organizer, open_stage, example_list):
    close_registration(organizer, open_stage)
    with pytest.raises(ActionError) as refused:
        apply_rating_list(organizer, open_stage, example_list)
    assert refused.value.code == ErrorCode.WRONG_STATUS
    assert set(ratings(open_stage).values()) == {1500}
    assert not StageRatingList.objects.exists()


def test_only_the_organizers_apply(stranger, open_stage, example_list):
    with pytest.raises(ActionError) as refused:
        apply_rating_list(stranger, open_stage, example_list)
    assert refused.value.code == ErrorCode.PERMISSION_DENIED


def test_the_api_applies_and_says_which_list(organizer, open_stage, example_list):
    client = APIClient()
    client.force_authenticate(organizer)
    url = reverse("api-stage-rating-list", args=[open_stage.pk])
    assert client.get(url).json()["rating_list"] is None
    answer = client.post(url, {"rating_list": example_list.pk}, format="json")
    assert answer.status_code == 200
    assert answer.json()["text"] == "Ratings from ICCF list 2026/4 (2026-10-01)"
    assert client.get(url).json()["matched"] == 10
    assert client.post(url, {"rating_list": 999999}, format="json").status_code == 400


def test_the_stage_pages_say_which_list(client, organizer, example_group):
    client.force_login(organizer)
    stage = example_group.stage
    words = "Ratings from ICCF list 2026/4 (2026-10-01)"
    page = client.get(reverse("stage", args=[stage.tournament.slug, stage.order]))
    assert words in page.content.decode()
    page = client.get(reverse("stage-rating-list", args=[stage.tournament.slug, stage.order]))
    assert words in page.content.decode()


# ---------------------------------------------------------------------------
# The report: page, CSV, API
# ---------------------------------------------------------------------------


def test_the_report_page_shows_each_line(client, example_group):
    stage = example_group.stage
    url = reverse("group-rating-report", args=[stage.tournament.slug, stage.order, 1])
    page = client.get(url).content.decode()
    assert "Dvořák" in page and "2378.3" in page and "+28.3" in page and "provisional" in page
    staged = client.get(reverse("stage-rating-report", args=[stage.tournament.slug, stage.order]))
    assert "2378.3" in staged.content.decode()


def test_the_report_csv(client, example_group):
    stage = example_group.stage
    url = reverse("group-rating-report-csv", args=[stage.tournament.slug, stage.order, 1])
    rows = list(csv.DictReader(io.StringIO(client.get(url).content.decode())))
    dvorak = next(r for r in rows if r["code"] == "E4")
    assert (dvorak["games"], dvorak["score"], dvorak["expected"]) == ("8", "6", "4.58")
    assert (dvorak["k"], dvorak["change"], dvorak["new_rating"]) == ("20", "28.3", "2378.3")
    jansen = next(r for r in rows if r["code"] == "E10")
    assert jansen["provisional"] == "1" and jansen["k"] == "" and jansen["games"] == "9"


def test_the_report_api(example_group):
    client = APIClient()
    body = client.get(reverse("api-group-rating-report", args=[example_group.pk])).json()
    fontaine = next(r for r in body["rows"] if r["code"] == "E6")
    assert fontaine["k"] == 40 and fontaine["rated_games_before"] == 12
    assert fontaine["change"] == 56.0 and fontaine["new_rating"] == 2321.0
    staged = client.get(reverse("api-stage-rating-report", args=[example_group.stage.pk])).json()
    assert staged["rows"] == body["rows"]


# ---------------------------------------------------------------------------
# Norm figures
# ---------------------------------------------------------------------------


def test_the_crosstable_shows_norm_figures(client, example_group):
    stage = example_group.stage
    url = reverse("group-crosstable", args=[stage.tournament.slug, stage.order, 1])
    page = client.get(url).content.decode()
    assert "IM norm: needs 6, has 6 ✓" in page
    assert "CCM norm: needs 4½, has 5 ✓" in page
    assert "IM norm: 7 rated games, at least 8 needed" in page
    assert "unofficial unless the event is a registered title tournament" in page


def test_the_crosstable_shows_norm_figures_in_the_readers_language(client, example_group):
    stage = example_group.stage
    url = reverse("group-crosstable", args=[stage.tournament.slug, stage.order, 1])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "Norma IM: servono 6, ne ha 6 ✓" in page
    assert "Norma IM: 7 partite valide per il rating, ne servono almeno 8" in page
    assert "non ufficiali, salvo che l&#x27;evento sia un torneo registrato" in page
    assert "IM norm" not in page


def test_the_norms_api_at_one_level_and_at_all(example_group):
    client = APIClient()
    url = reverse("api-group-norms", args=[example_group.pk])
    body = client.get(url, {"level": "IM"}).json()
    assert body["levels"] == ["IM"]
    assert body["note"] == "unofficial unless the event is a registered title tournament"
    dvorak = next(r for r in body["rows"] if r["code"] == "E4")
    assert dvorak["norms"] == [
        {
            "level": "IM",
            "level_rating": 2450,
            "games": 8,
            "score": 6.0,
            "expected": 5.5374,
            "requirement": 6.0,
            "norm": True,
            "text": "IM norm: needs 6, has 6 ✓",
        }
    ]
    every = client.get(url).json()
    assert every["levels"] == ["GM", "SIM", "IM", "CCM", "CCE"]
    assert [n["level"] for n in every["rows"][0]["norms"]] == every["levels"]
    bad = client.get(url, {"level": "XX"})
    assert bad.status_code == 400 and "XX" in bad.json()["message"] + str(bad.json()["details"])
