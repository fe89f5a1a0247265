"""The entrant CSV contract: all-or-nothing, every bad row listed, a stable digest."""

import re

import pytest

from apps.silli.entrants import (
    Entrant,
    EntrantCsvError,
    entrants_csv,
    entrants_digest,
    parse_entrants_csv,
    parse_pairs_csv,
)


def test_good_file_round_trips_and_person_defaults_to_code():
    text = (
        "code,name,nation,rating,person,email\nA1,Ann,ita,2100,,ann@example.org\nA2,Bo,GER,,P9,\n"
    )
    entrants = parse_entrants_csv(text)
    assert entrants == [
        Entrant("A1", "Ann", "ITA", 2100, "A1", "ann@example.org"),
        Entrant("A2", "Bo", "GER", None, "P9", ""),
    ]
    assert parse_entrants_csv(entrants_csv(entrants)) == entrants


def test_columns_may_come_in_any_order_and_optional_ones_may_be_missing():
    assert parse_entrants_csv("nation,code,name\nITA,X,Xi\n") == [Entrant("X", "Xi", "ITA")]


def test_every_bad_row_is_listed_with_line_and_reason():
    text = (
        "code,name,nation,rating,email\n"
        "A1,Ann,ITA,2100,\n"
        ",Bob,GER,,\n"
        "A3,Cy,GERMANY,abc,\n"
        "A1,Dee,FRA,,not-an-email\n"
        "A5,Eve\n"
    )
    with pytest.raises(EntrantCsvError) as err:
        parse_entrants_csv(text)
    lines = {e.line: e.message for e in err.value.errors}
    assert set(lines) == {3, 4, 5, 6}
    assert "code is required" in lines[3]
    assert (
        "not a 3-letter federation code" in lines[4] and "'abc' is not a whole number" in lines[4]
    )
    assert "duplicate code 'A1' (first used on line 2)" in lines[5] and "e-mail" in lines[5]
    assert "has 2 field(s), the header has 5" in lines[6]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("code,name,nation,club\nA,B,ITA,x\n", "unknown column(s) club"),
        ("code,name\nA,B\n", "missing required column(s) nation"),
        ("code,name,nation\n", "no entrants"),
    ],
)
def test_bad_headers_and_empty_files(text, reason):
    with pytest.raises(EntrantCsvError, match=re.escape(reason)):
        parse_entrants_csv(text)


def test_digest_covers_the_public_columns_only():
    a = [Entrant("A1", "Ann", "ITA", 2100, "P1", "ann@example.org")]
    b = [Entrant("A1", "Ann", "ITA", 2100, "P1", "")]
    assert entrants_digest(a) == entrants_digest(b)
    assert entrants_csv(a, public=True) == "code,name,nation,rating,person\nA1,Ann,ITA,2100,P1\n"
    assert entrants_digest(a) != entrants_digest([Entrant("A1", "Ann", "ITA", 2101, "P1")])


def test_digest_ignores_row_order_but_not_content():
    a = [Entrant("A1", "Ann", "ITA", 2100), Entrant("A2", "Bo", "GER")]
    assert entrants_digest(a) == entrants_digest(list(reversed(a)))
    assert entrants_digest(a) != entrants_digest([a[0], Entrant("A2", "Bo", "FRA")])


def test_pairs_file():
    assert parse_pairs_csv("a,b\nX,Y\n\nY,Z\n") == [("X", "Y"), ("Y", "Z")]
    with pytest.raises(EntrantCsvError, match="line 2"):
        parse_pairs_csv("a,b\nX,X\n")
