"""The import's second mode: a file that replaces the stage's list — a preview by code of who
is added, changed and removed, then all of it or nothing — through the API and the pages; and
the field rules refusing bad rows (400, every row listed, never 500) in both modes."""

import re
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, StageEntry
from apps.entrants.services import close_registration, engine_entrants

pytestmark = pytest.mark.django_db

# A1 kept as it is, A2 changed (rating, e-mail), A3 left out (removed), A4 renamed, B1 new.
REPLACEMENT = (
    "code,name,nation,rating,person,email\n"
    'A1,"Rossi, Anna",ITA,2100,,anna@example.org\n'
    'A2,"Weber, Bernd",GER,1990,,bernd@example.org\n'
    'A4,"Dupont, Denise",FRA,2300,,\n'
    'B1,"Novak, Bo",CZE,,,\n'
)


def url(stage) -> str:
    return f"/api/stages/{stage.pk}/entrants/import/"


def snapshot(stage):
    return engine_entrants(stage), Entrant.objects.count(), StageEntry.objects.count()


def test_a_dry_run_previews_the_replacement_by_code_and_writes_nothing(org, stage):
    before = snapshot(stage)
    answer = org.post(url(stage) + "?mode=replace&dry_run=1", REPLACEMENT, content_type="text/csv")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["mode"] == "replace" and body["applied"] is False
    assert (body["count"], body["unchanged"]) == (4, 1)
    assert body["added"] == ["B1"] and body["removed"] == ["A3"]
    assert body["changed"] == [
        {"code": "A2", "fields": {"rating": [1950, 1990], "email": ["", "bernd@example.org"]}},
        {"code": "A4", "fields": {"name": ["Dupont, Denis", "Dupont, Denise"]}},
    ]
    assert snapshot(stage) == before
    assert not AuditEvent.objects.filter(action="entrants.replaced").exists()


def test_the_replacement_is_applied_in_one_step_and_audited(org, stage):
    answer = org.post(url(stage) + "?mode=replace", REPLACEMENT, content_type="text/csv")
    assert answer.status_code == 200 and answer.json()["applied"] is True
    entrants = {e.code: e for e in engine_entrants(stage)}
    assert sorted(entrants) == ["A1", "A2", "A4", "B1"]
    assert (entrants["A2"].rating, entrants["A2"].email) == (1990, "bernd@example.org")
    assert entrants["A4"].name == "Dupont, Denise" and entrants["B1"].nation == "CZE"
    assert not Entrant.objects.filter(code="A3").exists()
    event = AuditEvent.objects.get(action="entrants.replaced")
    assert event.stage_id == stage.pk
    assert event.data | {"count": None} == {
        "count": None,
        "added": ["B1"],
        "changed": ["A2", "A4"],
        "removed": ["A3"],
        "unchanged": 1,
    }


def test_mode_and_dry_run_may_come_as_body_fields(org, stage):
    as_json = org.post(
        url(stage), {"csv": REPLACEMENT, "mode": "replace", "dry_run": True}, format="json"
    )
    assert as_json.status_code == 200 and as_json.json()["added"] == ["B1"]
    upload = SimpleUploadedFile("list.csv", REPLACEMENT.encode(), "text/csv")
    as_file = org.post(url(stage), {"file": upload, "mode": "replace"}, format="multipart")
    assert as_file.status_code == 200 and as_file.json()["applied"] is True
    assert sorted(e.code for e in engine_entrants(stage)) == ["A1", "A2", "A4", "B1"]


def test_an_unknown_mode_is_refused(org, stage):
    answer = org.post(url(stage) + "?mode=merge", REPLACEMENT, content_type="text/csv")
    assert answer.status_code == 400 and answer.json()["details"][0]["field"] == "mode"


def test_a_bad_replacement_changes_nothing_and_lists_every_bad_row(org, stage, organizer):
    # A5 is an entrant of the tournament but not of this stage (registered in stage 2).
    later = stage.tournament.stages.get(order=2)
    other = Entrant.objects.create(tournament=stage.tournament, code="A5", name="E", nation="ESP")
    StageEntry.objects.create(stage=later, entrant=other)
    text = (
        "code,name,nation,rating\n"
        "A1,Ann,ITA,2100\n"
        "A2,Nul\x00Byte,GER,\n"
        "A4,Dee,XYZ,\n"
        "A5,Eve,ESP,\n"
        "B1,=HYPERLINK(1),CZE,\n"
        "B2,Bo,ITL,99999\n"
    )
    before = snapshot(stage)
    answer = org.post(url(stage) + "?mode=replace", text, content_type="text/csv")
    assert answer.status_code == 400 and answer.json()["code"] == "bad_rows"
    rows = {d["line"]: d["message"] for d in answer.json()["details"]}
    assert sorted(rows) == [3, 4, 5, 6, 7]
    assert "U+0000" in rows[3]
    assert 'nation "XYZ" is not a FIDE federation code' in rows[4]
    assert "not in this stage" in rows[5]
    assert "formula" in rows[6]
    assert "did you mean ITA" in rows[7] and "outside 0..4000" in rows[7]
    assert "nothing was imported" in answer.json()["message"]
    assert snapshot(stage) == before


def test_a_change_to_an_entrant_frozen_in_another_stage_is_a_bad_row(org, stage, organizer):
    later = stage.tournament.stages.get(order=2)
    StageEntry.objects.create(stage=later, entrant=Entrant.objects.get(code="A1"))
    close_registration(organizer, stage)
    text = "code,name,nation\nA1,Someone Else,ITA\n"
    answer = org.post(
        f"/api/stages/{later.pk}/entrants/import/?mode=replace", text, content_type="text/csv"
    )
    assert answer.status_code == 400
    [row] = answer.json()["details"]
    assert row["line"] == 2 and "frozen in Preliminary (stage 1)" in row["message"]


def test_replacing_a_closed_list_is_409(org, stage, organizer):
    close_registration(organizer, stage)
    answer = org.post(url(stage) + "?mode=replace", REPLACEMENT, content_type="text/csv")
    assert answer.status_code == 409 and "withdraw" in answer.json()["message"]


@pytest.mark.parametrize(
    ("row", "words"),
    [
        ("Z1,Nul\x00Byte,ITA,", "U+0000"),
        ("Z1,Ann,ITA," + "e" * 250 + "@example.org", "longer than 254"),
        ('Z1,"Two\nlines",ITA,', "U+000A"),
        ("Z1,Ann,XYZ,", "FIDE federation code"),
        ("Z1,-2+3,ITA,", "formula"),
        ("Z 1,Ann,ITA,", "may hold only"),
    ],
)
def test_the_plain_import_refuses_bad_values_with_400_not_500(org, stage, row, words):
    text = "code,name,nation,email\n" + row + "\n"
    answer = org.post(url(stage), text, content_type="text/csv")
    assert answer.status_code == 400 and answer.json()["code"] == "bad_rows"
    assert words in answer.json()["details"][0]["message"]
    assert Entrant.objects.count() == 4


# ---------------------------------------------------------------------------
# The import page
# ---------------------------------------------------------------------------


def page(stage, name) -> str:
    return reverse(name, args=[stage.tournament.slug, stage.order])


def upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("entrants.csv", text.encode(), content_type="text/csv")


def test_the_import_page_previews_a_replacement_then_applies_it(organizer_client, stage):
    response = organizer_client.post(
        page(stage, "stage-import"), {"file": upload(REPLACEMENT), "mode": "replace"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Preview: the file replaces the list" in html
    assert re.search(r'id="count-added">1<', html) and re.search(r'id="count-removed">1<', html)
    assert re.search(r'id="count-changed">2<', html)
    assert "Dupont, Denise" in html and "Confirm: replace the list" in html
    assert Entrant.objects.filter(code="A3").exists()

    confirm = response.context["confirm_form"].initial
    response = organizer_client.post(
        page(stage, "stage-import-confirm"), {"csv": confirm["csv"], "mode": "replace"}, follow=True
    )
    assert response.redirect_chain[-1][0] == page(stage, "stage-manage")
    assert "1 added, 2 changed, 1 removed, 4 entrants now" in response.content.decode()
    assert sorted(e.code for e in engine_entrants(stage)) == ["A1", "A2", "A4", "B1"]


def test_the_import_page_lists_every_bad_row_of_a_replacement(organizer_client, stage):
    text = "code,name,nation\nA1,Ann,ITA\nA2,Tab\tName,GER\nA3,Cy,GERMANY\n"
    response = organizer_client.post(
        page(stage, "stage-import"), {"file": upload(text), "mode": "replace"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was imported" in html
    assert re.findall(r'<tr><td class="num">(\d+)</td>', html) == ["3", "4"]
    assert "did you mean GER?" in html
    response = organizer_client.post(
        page(stage, "stage-import-confirm"), {"csv": text, "mode": "replace"}
    )
    assert response.status_code == 400
    assert sorted(e.code for e in engine_entrants(stage)) == ["A1", "A2", "A3", "A4"]


def test_the_plain_import_page_still_adds(organizer_client, stage):
    text = "code,name,nation\nC1,Cleo,GRE\n"
    response = organizer_client.post(page(stage, "stage-import"), {"file": upload(text)})
    assert "Confirm import of 1 entrant" in response.content.decode()
    organizer_client.post(page(stage, "stage-import-confirm"), {"csv": text})
    assert stage.entries.count() == 5


def test_the_command_replaces_a_list_too(stage, tmp_path):
    path = tmp_path / "list.csv"
    path.write_text(REPLACEMENT)
    args = [str(path), "--tournament", "entrant-cup", "--user", "org", "--replace"]
    out = StringIO()
    call_command("import_entrants", *args, "--dry-run", stdout=out)
    assert "would replace" in out.getvalue() and "1 added, 2 changed, 1 removed" in out.getvalue()
    assert Entrant.objects.filter(code="A3").exists()
    call_command("import_entrants", *args, stdout=out)
    assert sorted(e.code for e in engine_entrants(stage)) == ["A1", "A2", "A4", "B1"]
