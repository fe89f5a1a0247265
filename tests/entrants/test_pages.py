"""The organizer's entrant list page: adding, changing and removing one entrant while
registration is open; read-only after; only for organizers; refused values shown at their
field with 400, never a 500."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from apps.core.models import AuditEvent
from apps.entrants.models import Entrant
from apps.entrants.services import close_registration

pytestmark = pytest.mark.django_db


def list_url(stage) -> str:
    return reverse("stage-entrants", args=[stage.tournament.slug, stage.order])


def edit_url(stage, code) -> str:
    return reverse("stage-entrant-edit", args=[stage.tournament.slug, stage.order, code])


def remove_url(stage, code) -> str:
    return reverse("stage-entrant-remove", args=[stage.tournament.slug, stage.order, code])


def test_the_list_shows_the_entrants_and_the_forms(organizer_client, stage):
    response = organizer_client.get(list_url(stage))
    assert response.status_code == 200
    html = response.content.decode()
    assert "4 entrants" in html and "Rossi, Anna" in html and "anna@example.org" in html
    assert 'id="add-entrant"' in html
    assert html.count('class="button small secondary" href="') == 4
    assert remove_url(stage, "A3") in html
    found = organizer_client.get(list_url(stage), {"q": "weber"}).content.decode()
    assert "Weber, Bernd" in found and "Rossi, Anna" not in found


def test_adding_an_entrant_on_the_page(organizer_client, stage):
    response = organizer_client.post(
        list_url(stage),
        {"code": "", "name": "Nowak, Jan", "nation": "pol", "rating": "1880", "email": ""},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == list_url(stage)
    assert "Nowak, Jan (E000001) is registered." in response.content.decode()
    entrant = Entrant.objects.get(code="E000001")
    assert (entrant.nation, entrant.rating, entrant.person) == ("POL", 1880, "E000001")
    assert AuditEvent.objects.filter(action="entrant.added").count() == 1


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"name": "Ann\x00", "nation": "ITA"}, "name", "U+0000"),
        ({"name": "Ann\tB", "nation": "ITA"}, "name", "U+0009"),
        ({"name": "N" * 201, "nation": "ITA"}, "name", "longer than 200 characters"),
        ({"name": "=1+1", "nation": "ITA"}, "name", "formula"),
        ({"name": "Ann", "nation": "ITL"}, "nation", "did you mean ITA"),
        ({"name": "Ann", "nation": "XYZ"}, "nation", "is not a FIDE federation code"),
        ({"code": "PQ 3,|", "name": "Ann", "nation": "ITA"}, "code", "may hold only"),
        ({"name": "Ann", "nation": "ITA", "email": "e" * 250 + "@b.org"}, "email", "254"),
        ({"name": "Ann", "nation": "ITA", "rating": "abc"}, "rating", "whole number"),
    ],
)
def test_refused_values_are_shown_at_their_field(organizer_client, stage, data, field, words):
    response = organizer_client.post(list_url(stage), data)
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == [field] and words in form.errors[field][0]
    assert words in response.content.decode() or field == "nation"
    assert Entrant.objects.count() == 4


def test_a_taken_code_is_shown_at_the_code(organizer_client, stage):
    response = organizer_client.post(list_url(stage), {"code": "A1", "name": "X", "nation": "ITA"})
    assert response.status_code == 409
    assert "taken" in response.context["form"].errors["code"][0]


def test_changing_an_entrant_on_the_page(organizer_client, stage):
    form = organizer_client.get(edit_url(stage, "A3"))
    assert form.status_code == 200
    assert form.context["form"].initial["person"] == "P3"
    assert "code" not in form.context["form"].fields
    refused = organizer_client.post(edit_url(stage, "A3"), {"name": "Smith", "nation": "GBR"})
    assert refused.status_code == 400
    assert "did you mean ENG, SCO, WLS?" in refused.context["form"].errors["nation"][0]
    response = organizer_client.post(
        edit_url(stage, "A3"),
        {"name": "Smith, Carol Ann", "nation": "sco", "rating": "2050", "person": "", "email": ""},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == list_url(stage)
    entrant = Entrant.objects.get(code="A3")
    assert (entrant.name, entrant.nation, entrant.rating) == ("Smith, Carol Ann", "SCO", 2050)
    assert (entrant.person, entrant.email) == ("A3", "")
    event = AuditEvent.objects.get(action="entrant.updated")
    assert event.data["changes"]["nation"] == ["ENG", "SCO"]


def test_removing_an_entrant_on_the_page(organizer_client, stage):
    response = organizer_client.post(remove_url(stage, "A2"), follow=True)
    assert "Weber, Bernd (A2) is removed from the list." in response.content.decode()
    assert not Entrant.objects.filter(code="A2").exists()
    assert organizer_client.get(remove_url(stage, "A2")).status_code == 405
    assert organizer_client.get(edit_url(stage, "NOBODY")).status_code == 404


def test_after_registration_closes_the_list_is_read_only(organizer_client, stage, organizer):
    close_registration(organizer, stage)
    html = organizer_client.get(list_url(stage)).content.decode()
    assert 'id="list-frozen"' in html and "withdraw" in html
    assert 'id="add-entrant"' not in html and remove_url(stage, "A1") not in html
    added = organizer_client.post(list_url(stage), {"code": "Z1", "name": "Zed", "nation": "ITA"})
    assert added.status_code == 409
    assert "Registration for this stage is closed" in added.content.decode()
    removed = organizer_client.post(remove_url(stage, "A1"), follow=True)
    assert "Registration for this stage is closed" in removed.content.decode()
    edit = organizer_client.get(edit_url(stage, "A1"))
    assert edit.status_code == 302 and edit["Location"] == list_url(stage)
    changed = organizer_client.post(edit_url(stage, "A1"), {"name": "X", "nation": "ITA"})
    assert changed.status_code == 302
    assert sorted(stage.entries.values_list("entrant__code", flat=True)) == [
        "A1",
        "A2",
        "A3",
        "A4",
    ]
    assert Entrant.objects.get(code="A1").name == "Rossi, Anna"


def test_only_organizers_use_the_pages(client, stranger_client, stage):
    urls = [list_url(stage), edit_url(stage, "A1")]
    for url in urls:
        assert stranger_client.get(url).status_code == 403
        assert stranger_client.post(url, {"name": "X", "nation": "ITA"}).status_code == 403
    assert stranger_client.post(remove_url(stage, "A1")).status_code == 403
    anonymous = Client()
    assert anonymous.get(list_url(stage)).status_code == 302
    assert anonymous.post(remove_url(stage, "A1")).status_code == 302
    assert (
        Entrant.objects.count() == 4
        and not AuditEvent.objects.filter(action__startswith="entrant.").exists()
    )


def test_the_pages_need_a_csrf_token(organizer, stage):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(organizer)
    assert csrf_client.post(remove_url(stage, "A1")).status_code == 403
    html = csrf_client.get(list_url(stage)).content.decode()
    assert len(re.findall(r'name="csrfmiddlewaretoken"', html)) >= 5
    assert Entrant.objects.filter(code="A1").exists()


def test_the_list_reaches_an_entrant_stored_before_the_rules(organizer_client, stage):
    [legacy] = Entrant.objects.bulk_create(
        [Entrant(tournament=stage.tournament, code="A/1 |", name="Old", nation="ITA", person="x")]
    )
    stage.entries.create(entrant=legacy)
    html = organizer_client.get(list_url(stage)).content.decode()
    assert remove_url(stage, "A/1 |") in html
    assert organizer_client.get(edit_url(stage, "A/1 |")).status_code == 200
    organizer_client.post(remove_url(stage, "A/1 |"))
    assert not Entrant.objects.filter(code="A/1 |").exists()
    # A NUL in the address is refused before the view (apps.core.middleware): 400, not 500.
    assert organizer_client.get(list_url(stage), {"q": "x\x00y"}).status_code == 400
