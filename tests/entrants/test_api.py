"""Adding, changing and removing one entrant through the API while registration is open; 409
once it is closed, 403 for anyone but the organizers, 400 (never 500) for refused values."""

import pytest

from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, StageEntry
from apps.entrants.services import close_registration
from apps.stages.models import Stage

pytestmark = pytest.mark.django_db


def base(stage) -> str:
    return f"/api/stages/{stage.pk}/entrants/"


def codes(stage) -> list[str]:
    return sorted(stage.entries.values_list("entrant__code", flat=True))


def events(action: str) -> list[dict]:
    rows = AuditEvent.objects.filter(action=action).order_by("pk")
    return list(rows.values_list("data", flat=True))


# ---------------------------------------------------------------------------
# Add, change, remove
# ---------------------------------------------------------------------------


def test_an_organizer_adds_an_entrant_with_a_code_or_without(org, stage):
    given = org.post(
        base(stage),
        {"code": "B1", "name": "Bianchi, Bruna", "nation": "ita", "rating": 2010},
        format="json",
    )
    made = org.post(base(stage), {"name": "Nowak, Jan", "nation": "POL"}, format="json")

    assert given.status_code == 201, given.json()
    assert given.json() == {
        "code": "B1",
        "name": "Bianchi, Bruna",
        "nation": "ITA",
        "rating": 2010,
        "person": "B1",
        "email": "",
        "source": "registered",
        "reason": "",
    }
    assert given["Location"] == base(stage) + "B1/"
    assert made.status_code == 201 and made.json()["code"] == "E000001"
    assert codes(stage) == ["A1", "A2", "A3", "A4", "B1", "E000001"]
    assert [(e["entrant"], e["generated_code"]) for e in events("entrant.added")] == [
        ("B1", False),
        ("E000001", True),
    ]


def test_a_code_taken_in_the_tournament_is_a_conflict(org, stage):
    answer = org.post(base(stage), {"code": "A1", "name": "X", "nation": "ITA"}, format="json")
    assert answer.status_code == 409 and answer.json()["code"] == "conflict"
    assert "A1" in answer.json()["message"]
    assert Entrant.objects.count() == 4


def test_an_organizer_changes_an_entrants_details(org, stage):
    answer = org.patch(
        base(stage) + "A2/",
        {"name": "Weber, Bernd K.", "nation": "aut", "rating": None, "email": "bk@example.org"},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json() | {"source": None, "reason": None} == {
        "code": "A2",
        "name": "Weber, Bernd K.",
        "nation": "AUT",
        "rating": None,
        "person": "A2",
        "email": "bk@example.org",
        "source": None,
        "reason": None,
    }
    [event] = events("entrant.updated")
    assert event["entrant"] == "A2"
    assert event["changes"] == {
        "name": ["Weber, Bernd", "Weber, Bernd K."],
        "nation": ["GER", "AUT"],
        "rating": [1950, None],
        "email": ["", "bk@example.org"],
    }


def test_the_code_never_changes(org, stage):
    answer = org.patch(base(stage) + "A2/", {"code": "Z9"}, format="json")
    assert answer.status_code == 400 and answer.json()["details"][0]["field"] == "code"
    assert Entrant.objects.filter(code="A2").exists()
    same = org.patch(base(stage) + "A2/", {"code": "A2", "rating": 1960}, format="json")
    assert same.status_code == 200 and same.json()["rating"] == 1960


def test_an_organizer_removes_an_entrant_and_the_code_is_free_again(org, stage):
    answer = org.delete(base(stage) + "A3/")
    assert answer.status_code == 204 and answer.content == b""
    assert codes(stage) == ["A1", "A2", "A4"]
    assert not Entrant.objects.filter(code="A3").exists()
    [event] = events("entrant.removed")
    assert event["entrant"] == "A3" and event["left_tournament"] is True
    again = org.post(base(stage), {"code": "A3", "name": "New", "nation": "SCO"}, format="json")
    assert again.status_code == 201


def test_unknown_codes_are_404(org, stage):
    assert org.patch(base(stage) + "NOBODY/", {"rating": 1}, format="json").status_code == 404
    answer = org.delete(base(stage) + "NOBODY/")
    assert answer.status_code == 404 and "NOBODY" in answer.json()["message"]


def test_an_entrant_coded_import_is_reachable_too(org, stage):
    org.post(base(stage), {"code": "import", "name": "Odd", "nation": "ITA"}, format="json")
    changed = org.patch(base(stage) + "import/", {"rating": 1800}, format="json")
    assert changed.status_code == 200 and changed.json()["rating"] == 1800
    assert org.delete(base(stage) + "import/").status_code == 204


def test_a_stage_of_a_later_round_keeps_an_entrant_of_an_earlier_one(org, stage, organizer):
    """Removing an entrant from one open stage keeps them in the tournament while another
    stage has them; changing them is refused while that stage's list is frozen."""
    later = stage.tournament.stages.get(order=2)
    StageEntry.objects.create(stage=later, entrant=Entrant.objects.get(code="A1"))
    close_registration(organizer, stage)
    answer = org.patch(f"/api/stages/{later.pk}/entrants/A1/", {"rating": 1}, format="json")
    assert answer.status_code == 409 and "frozen" in answer.json()["message"]
    assert org.delete(f"/api/stages/{later.pk}/entrants/A1/").status_code == 204
    assert Entrant.objects.filter(code="A1").exists()
    assert events("entrant.removed")[0]["left_tournament"] is False


# ---------------------------------------------------------------------------
# Closed registration, permissions
# ---------------------------------------------------------------------------


def test_after_registration_closes_every_change_is_409(org, stage, organizer):
    close_registration(organizer, stage)
    answers = [
        org.post(base(stage), {"code": "Z1", "name": "Zed", "nation": "ITA"}, format="json"),
        org.patch(base(stage) + "A1/", {"rating": 2000}, format="json"),
        org.delete(base(stage) + "A1/"),
    ]
    for answer in answers:
        assert answer.status_code == 409
        assert answer.json()["code"] == "wrong_status"
        assert "Registration for this stage is closed" in answer.json()["message"]
        assert "withdraw" in answer.json()["message"]
    assert codes(stage) == ["A1", "A2", "A3", "A4"]
    assert Entrant.objects.get(code="A1").rating == 2100


def test_in_play_the_sentence_points_to_withdrawal(org, stage):
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.PUBLISHED)
    answer = org.delete(base(stage) + "A1/")
    assert answer.status_code == 409
    assert "withdraw the entrant instead" in answer.json()["message"]


@pytest.mark.parametrize("who", ["anon", "joe"])
def test_only_organizers_change_the_list(request, who, stage):
    client = request.getfixturevalue(who)
    answers = [
        client.post(base(stage), {"code": "Z1", "name": "Zed", "nation": "ITA"}, format="json"),
        client.patch(base(stage) + "A1/", {"rating": 2000}, format="json"),
        client.delete(base(stage) + "A1/"),
        client.post(
            base(stage) + "import/?mode=replace",
            "code,name,nation\nZ,Z,ITA\n",
            content_type="text/csv",
        ),
    ]
    for answer in answers:
        assert answer.status_code == 403
        assert answer.json()["code"] == "permission_denied"
    assert codes(stage) == ["A1", "A2", "A3", "A4"]
    assert not events("entrant.added") and not events("entrant.removed")


def test_a_missing_stage_is_404(org, db):
    assert org.delete("/api/stages/999999/entrants/A1/").status_code == 404


# ---------------------------------------------------------------------------
# Refused values: 400 with every field's reason, never 500
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"name": "Nul\x00Byte", "nation": "ITA"}, "name", "U+0000"),
        ({"name": "Tab\tName", "nation": "ITA"}, "name", "U+0009"),
        ({"name": "Two\nlines", "nation": "ITA"}, "name", "U+000A"),
        ({"name": "N" * 201, "nation": "ITA"}, "name", "longer than 200"),
        ({"name": "=SUM(A1:A9)", "nation": "ITA"}, "name", "formula"),
        ({"name": "@cmd", "nation": "ITA"}, "name", "formula"),
        ({"name": "Ann", "nation": "XYZ"}, "nation", "not a FIDE federation code"),
        ({"name": "Ann", "nation": "ITL"}, "nation", "did you mean ITA"),
        ({"name": "Ann", "nation": "1<>"}, "nation", "3-letter"),
        ({"code": "PQ 3,|", "name": "Ann", "nation": "ITA"}, "code", "may hold only"),
        ({"code": "C" * 33, "name": "Ann", "nation": "ITA"}, "code", "longer than 32"),
        ({"name": "Ann", "nation": "ITA", "person": "P" * 33}, "person", "longer than 32"),
        ({"name": "Ann", "nation": "ITA", "email": "a" * 250 + "@b.org"}, "email", "254"),
        ({"name": "Ann", "nation": "ITA", "email": "not-an-address"}, "email", "e-mail"),
        ({"name": "Ann", "nation": "ITA", "rating": 9999}, "rating", "outside 0..4000"),
        ({"name": "Ann", "nation": "ITA", "rating": "x"}, "rating", "whole number"),
        ({"name": "", "nation": "ITA"}, "name", "required"),
        ({"nation": "ITA"}, "name", "required"),
    ],
)
def test_refused_values_are_400_with_the_field_and_reason(org, stage, body, field, words):
    answer = org.post(base(stage), body, format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "invalid_input"
    details = answer.json()["details"]
    assert [d["field"] for d in details] == [field]
    assert words in details[0]["message"] and words in answer.json()["message"]
    assert Entrant.objects.count() == 4


def test_a_change_is_checked_by_the_same_rules(org, stage):
    answer = org.patch(base(stage) + "A1/", {"nation": "DEU", "name": "+1"}, format="json")
    assert answer.status_code == 400
    fields = {d["field"]: d["message"] for d in answer.json()["details"]}
    assert set(fields) == {"nation", "name"}
    assert "did you mean GER" in fields["nation"]
    assert Entrant.objects.get(code="A1").nation == "ITA"


def test_an_entrant_stored_before_the_rules_can_be_mended_or_removed(org, stage):
    """An entrant the rules would refuse today (the pre-qualified "PQ 3,|" of nation "1<>")
    is still reachable by its code: its nation can be mended, and it can be removed."""
    [legacy] = Entrant.objects.bulk_create(
        [Entrant(tournament=stage.tournament, code="PQ 3,|", name="Old", nation="1<>", person="x")]
    )
    StageEntry.objects.create(stage=stage, entrant=legacy)
    address = base(stage) + "PQ%203,%7C/"
    mended = org.patch(address, {"nation": "ITA"}, format="json")
    assert mended.status_code == 200 and mended.json()["nation"] == "ITA"
    assert org.delete(address).status_code == 204
    assert org.delete(base(stage) + "A%00/").status_code == 400  # NUL: NulCharacterMiddleware
    assert org.delete(base(stage) + "X" * 40 + "/").status_code == 404
