"""The pre-qualified entrant obeys the same field rules as every other way in: the form of the
qualification page, its page and the API refuse bad codes, nations, names, control
characters and long values with a sentence (400 from the API, never a 500)."""

import pytest
from django.urls import reverse

from apps.entrants.models import Entrant
from apps.qualification.forms import DeclineForm, PrequalifiedForm, RuleForm
from apps.stages.models import Stage

pytestmark = pytest.mark.django_db

GOOD = {"code": "PQ-1", "reason": "finalist of the 3rd Cup", "name": "Pre, Qual", "nation": "ita"}


@pytest.fixture
def in_play(stage):
    """The first stage in play (qualification opens then); the second has no entrants yet."""
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.PUBLISHED)
    stage.refresh_from_db()
    return stage


def test_the_form_takes_good_details_as_the_engine_has_them():
    form = PrequalifiedForm(data={**GOOD, "rating": "2400", "email": " pq@example.org "})
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {
        "code": "PQ-1",
        "reason": "finalist of the 3rd Cup",
        "name": "Pre, Qual",
        "nation": "ITA",
        "rating": 2400,
        "email": "pq@example.org",
    }
    existing = PrequalifiedForm(data={"code": "A1", "reason": "earlier Cup"})
    assert existing.is_valid() and existing.cleaned_data["nation"] == ""


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("code", "PQ 3,|", "may hold only"),
        ("code", "C" * 33, "longer than 32"),
        ("nation", "1<>", "3-letter federation code"),
        ("nation", "XYZ", "not a FIDE federation code"),
        ("nation", "ITL", "did you mean ITA"),
        ("name", "=HYPERLINK(1)", "formula"),
        ("name", "Nul\x00Byte", "U+0000"),
        ("name", "N" * 201, "longer than 200"),
        ("reason", "two\nlines", "U+000A"),
        ("reason", "R" * 201, "longer than 200"),
        ("email", "e" * 250 + "@example.org", "longer than 254"),
        ("email", "nobody", "not an e-mail address"),
        ("rating", "4001", "outside 0..4000"),
    ],
)
def test_the_form_refuses_what_the_rules_refuse(field, value, words):
    form = PrequalifiedForm(data={**GOOD, field: value})
    assert not form.is_valid()
    assert list(form.errors) == [field] and words in form.errors[field][0]


def test_other_qualification_texts_refuse_control_characters():
    assert not DeclineForm(data={"code": "A1", "reason": "no\x00time"}).is_valid()
    assert not RuleForm(data={"rule": "", "seed": "lot\tseed"}).is_valid()
    assert RuleForm(data={"rule": "", "seed": " lot 17 "}).is_valid()


def test_the_page_refuses_a_bad_entrant_and_says_why(organizer_client, in_play):
    url = reverse("stage-qualification-prequalify", args=[in_play.tournament.slug, 1])
    response = organizer_client.post(url, {**GOOD, "code": "PQ 3,|", "nation": "1<>"}, follow=True)
    html = response.content.decode()
    assert response.status_code == 200
    assert "may hold only" in html and "3-letter federation code" in html
    assert not Entrant.objects.filter(name="Pre, Qual").exists()
    response = organizer_client.post(url, GOOD, follow=True)
    assert "Pre, Qual is pre-qualified." in response.content.decode()
    assert Entrant.objects.get(code="PQ-1").nation == "ITA"


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"code": "PQ 3,|", "nation": "1<>"}, "code", "may hold only"),
        ({"nation": "XYZ"}, "nation", "not a FIDE federation code"),
        ({"email": "e" * 250 + "@example.org"}, "email", "longer than 254"),
        ({"name": "@SUM(1)"}, "name", "formula"),
        ({"name": "Tab\tName"}, "name", "U+0009"),
    ],
)
def test_the_api_refuses_a_bad_new_entrant_with_400(org, in_play, body, field, words):
    """Whatever the qualification API's own serializer lets through, the entrant itself
    refuses details the rules refuse (apps/entrants/models.py): a 400, not a broken list."""
    answer = org.post(
        f"/api/stages/{in_play.pk}/qualification/prequalified/", {**GOOD, **body}, format="json"
    )
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "invalid_input"
    details = {d["field"]: d["message"] for d in answer.json()["details"]}
    assert field in details and words in details[field]
    assert Entrant.objects.count() == 4
