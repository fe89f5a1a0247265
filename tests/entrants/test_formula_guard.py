"""One formula-prefix guard for every entrant text field that reaches a CSV, the e-mail
included (issue 25, item 6): ``=1+1@example.com`` was accepted and written unguarded into the
organizers' entrant CSV, while a name beginning with ``= + - @`` was refused."""

import pytest

from apps.core.csvfiles import safe_cell
from apps.entrants.models import Entrant
from apps.silli.entrants import (
    FORMULA_PREFIXES,
    EntrantCsvError,
    check_email,
    check_name,
    entrants_csv,
    parse_entrants_csv,
)
from apps.silli.entrants import (
    Entrant as EngineEntrant,
)

ADDRESSES = ["=1+1@example.com", "+1@example.com", "-cmd@example.com"]


@pytest.mark.parametrize("address", ADDRESSES)
def test_an_address_beginning_with_a_formula_prefix_is_refused_as_a_name_is(address):
    _value, problems = check_email(address)
    assert [p.kind for p in problems] == ["formula"]
    _name, name_problems = check_name("=" + address)
    assert [p.kind for p in name_problems] == ["formula"]
    assert (
        problems[0].message.replace("e-mail", "x").split(":")[1]
        == (name_problems[0].message.split(":")[1])
    )


def test_plus_and_minus_inside_an_address_stay_allowed():
    for address in ["anna+chess@example.org", "jean-luc@example.fr", "a=b@example.org"]:
        assert check_email(address) == (address, [])


def test_the_csv_guard_covers_the_entrant_prefixes():
    assert all(safe_cell(p + "x") == "'" + p + "x" for p in FORMULA_PREFIXES)


def test_an_entrant_csv_with_such_an_address_is_refused():
    text = "code,name,nation,email\nA1,Ann,ITA,=1+1@example.com\n"
    with pytest.raises(EntrantCsvError) as refused:
        parse_entrants_csv(text)
    assert "formula" in str(refused.value)


def test_the_organizers_csv_neutralises_a_stored_address_that_slipped_in():
    entrant = EngineEntrant("A1", "Ann", "ITA", None, "A1", "=1+1@example.com")
    text = entrants_csv([entrant])
    assert text.splitlines()[1] == "A1,Ann,ITA,,A1,'=1+1@example.com"
    # the public list (no e-mail) is the engine's canonical file, unchanged
    assert entrants_csv([entrant], public=True).splitlines()[1] == "A1,Ann,ITA,,A1"


@pytest.mark.django_db
def test_the_api_refuses_the_address_on_import(org, stage):
    text = "code,name,nation,email\nZ1,Ann,ITA,=1+1@example.com\n"
    answer = org.post(f"/api/stages/{stage.pk}/entrants/import/", text, content_type="text/csv")
    assert answer.status_code == 400 and answer.json()["code"] == "bad_rows"
    assert "formula" in answer.json()["details"][0]["message"]
    assert not Entrant.objects.filter(email__startswith="=").exists()
