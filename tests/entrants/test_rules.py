"""The entrant field rules of the engine: one place, used by the CSV, the forms and the API.
FIDE federation codes with suggestions, control characters, lengths, safe codes, formula
prefixes — and valid entrants come out exactly as before."""

import csv
import io
from pathlib import Path

import pytest

from apps.entrants import fields
from apps.silli import entrants as rules
from apps.silli.entrants import (
    Entrant,
    EntrantCsvError,
    check_entrant,
    check_fields,
    check_nation,
    entrants_csv,
    entrants_digest,
    federations,
    parse_entrants_csv,
)
from apps.silli.synth import FEDERATIONS, make_entrants

DATA = Path(rules.__file__).parent / "data" / "fide_federations.csv"


def problems_of(**fields):
    values = {"code": "A1", "name": "Ann", "nation": "ITA", **fields}
    return check_entrant(**values)[1]


def kinds(**fields):
    return [(p.field, p.kind) for p in problems_of(**fields)]


# ---------------------------------------------------------------------------
# The federation list
# ---------------------------------------------------------------------------


def test_the_federation_file_names_its_source_and_holds_fides_codes():
    text = DATA.read_text("utf-8")
    assert text.startswith("#") and "FIDE" in text.splitlines()[1]
    assert "Source" in (DATA.parent / "README.md").read_text("utf-8")
    rows = list(csv.reader(line for line in text.splitlines() if not line.startswith("#")))
    assert rows[0] == ["code", "name"]
    codes = [code for code, _ in rows[1:]]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert 195 <= len(codes) <= 210
    assert all(len(code) == 3 and code.isascii() and code.isupper() for code in codes)
    assert {"AFG", "ALB", "ALG", "AND", "ANG", "ARG", "ARM", "AUS", "AUT", "AZE"} <= set(codes)
    assert {"ENG", "SCO", "WLS", "GCI", "JCI", "IOM", "KOS", "FID", "TPE", "HKG"} <= set(codes)
    assert not {"GBR", "DEU", "NLD", "XKX", "YUG", "SCG"} & set(codes)
    assert federations()["ITA"] == "Italy" and federations()["FID"] == "FIDE"


def test_synthetic_entrants_use_real_codes_only():
    assert set(FEDERATIONS) <= set(federations())
    parse_entrants_csv(entrants_csv(make_entrants(2000, "rules", nations=len(FEDERATIONS))))


def test_valid_entrants_come_out_as_before_so_digests_do_not_change():
    text = (
        "code,name,nation,rating,person,email\n"
        " A1 , Ann ,ita, 2100 ,,ann@example.org\n"
        "A2,Bo,GER,,P9,\n"
    )
    parsed = parse_entrants_csv(text)
    assert parsed == [
        Entrant("A1", "Ann", "ITA", 2100, "A1", "ann@example.org"),
        Entrant("A2", "Bo", "GER", None, "P9", ""),
    ]
    assert entrants_digest(parsed) == entrants_digest(
        [Entrant("A1", "Ann", "ITA", 2100, "A1"), Entrant("A2", "Bo", "GER", None, "P9")]
    )


# ---------------------------------------------------------------------------
# Nations
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ITL", 'nation "ITL" is not a FIDE federation code (did you mean ITA'),
        ("DEU", 'nation "DEU" is not a FIDE federation code (did you mean GER'),
        ("GBR", 'nation "GBR" is not a FIDE federation code (did you mean ENG, SCO, WLS?)'),
        ("XKX", 'nation "XKX" is not a FIDE federation code (did you mean KOS?)'),
        ("Germany", 'nation "Germany" is not a 3-letter federation code (did you mean GER?)'),
        ("XYZ", 'nation "XYZ" is not a FIDE federation code'),
        ("1<>", 'nation "1<>" is not a 3-letter federation code'),
    ],
)
def test_an_unknown_nation_is_refused_with_the_closest_codes(typed, message):
    checked, problems = check_nation(typed)
    assert [p.field for p in problems] == ["nation"]
    assert problems[0].message.startswith(message)


def test_nations_are_upper_cased_and_trimmed():
    assert check_nation(" ita ") == ("ITA", [])
    assert check_nation("fid") == ("FID", [])


# ---------------------------------------------------------------------------
# Control characters, lengths, codes, formulas, e-mail, rating
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        ("\x00", "U+0000"),
        ("\t", "U+0009"),
        ("\n", "U+000A"),
        ("\r", "U+000D"),
        ("\x7f", "U+007F"),
        ("\u200b", "U+200B"),
        ("\u202e", "U+202E"),
        ("\ufeff", "U+FEFF"),
        ("\u2028", "U+2028"),
    ],
)
@pytest.mark.parametrize("field", ["code", "name", "nation", "person", "email"])
def test_control_characters_are_refused_in_every_text_field(field, char, shown):
    value = {"code": "A1", "name": "Ann", "nation": "ITA", "person": "P1", "email": "a@b.org"}
    value[field] = value[field][:1] + char + value[field][1:]
    problems = problems_of(**{field: value[field]})
    assert [(p.field, p.kind) for p in problems] == [(field, "control")]
    assert f"contains the control character {shown} (position 2)" in problems[0].message


def test_a_normal_space_and_other_spaces_are_no_control_characters():
    assert problems_of(name="Anna Maria\u00a0Rossi") == []
    assert problems_of(name="Nguyễn Văn An") == []


@pytest.mark.parametrize(
    ("field", "limit"), [("code", 32), ("name", 200), ("person", 32), ("email", 254)]
)
def test_every_text_field_has_a_length_limit(field, limit):
    if field == "email":
        ok, too_long = "a" * 60 + "@" + "b" * (limit - 65) + ".org", "a@" + "b" * limit + ".org"
    else:
        ok, too_long = "A" * limit, "A" * (limit + 1)
    assert len(ok) == limit and problems_of(**{field: ok}) == []
    problems = problems_of(**{field: too_long})
    assert [(p.field, p.kind) for p in problems] == [(field, "too_long")]
    assert f"is longer than {limit} characters" in problems[0].message


@pytest.mark.parametrize("code", ["PQ 3,|", "A/1", "a;b", "-A1", ".x", "Müller", "A1<>", "x'"])
def test_codes_and_persons_must_be_safe(code):
    assert kinds(code=code) == [("code", "code_chars")]
    assert kinds(person=code) == [("person", "code_chars")]


@pytest.mark.parametrize("code", ["A1", "E000001", "CUP3-02", "ita.2024_x", "7"])
def test_safe_codes_pass(code):
    assert problems_of(code=code) == []


@pytest.mark.parametrize("prefix", ["=", "+", "-", "@"])
def test_names_must_not_begin_with_a_formula_prefix(prefix):
    problems = problems_of(name=prefix + "HYPERLINK(1)")
    assert [(p.field, p.kind) for p in problems] == [("name", "formula")]
    assert "spreadsheets would run it as a formula" in problems[0].message
    assert problems_of(name="Anna " + prefix) == []


@pytest.mark.parametrize(
    "email", ["plain", "a@b", "a b@c.org", "a@b..org", "<a@b.org>", "a@b.org,c@d.org", "@b.org"]
)
def test_emails_must_be_addresses(email):
    assert kinds(email=email) == [("email", "email")]


def test_ratings_are_whole_numbers_in_range():
    assert kinds(rating="abc") == [("rating", "rating_number")]
    assert kinds(rating=4001) == [("rating", "rating_range")]
    assert kinds(rating="-1") == [("rating", "rating_range")]
    assert check_entrant(code="A", name="B", nation="ITA", rating="0")[0].rating == 0


def test_check_fields_checks_only_what_is_given():
    checked, problems = check_fields({"nation": "ger", "rating": None})
    assert checked == {"nation": "GER", "rating": None} and problems == []
    _, problems = check_fields({"code": ""}, optional=("code",))
    assert problems == []
    with pytest.raises(ValueError):
        check_fields({"club": "x"})


# ---------------------------------------------------------------------------
# The CSV: every bad row listed, with the same rules
# ---------------------------------------------------------------------------


def test_the_csv_lists_every_row_the_rules_refuse():
    rows = [
        ["code", "name", "nation", "rating", "person", "email"],
        ["A1", "Ann", "ITA", "2100", "", ""],
        ["PQ 3,|", "Bo", "1<>", "", "", ""],
        ["A3", "=cmd|' /C calc'!A0", "ITL", "", "", ""],
        ["A4", "Nul\x00Byte", "GER", "", "", "x" * 250 + "@example.org"],
        ["A5", "Tab\tName", "FRA", "", "P 5", ""],
        ["A6", "Line\nbreak", "ESP", "", "", ""],
        ["A7", "N" * 201, "ENG", "", "", ""],
    ]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    with pytest.raises(EntrantCsvError) as err:
        parse_entrants_csv(out.getvalue())
    lines = {e.line: e.message for e in err.value.errors}
    assert sorted(lines) == [3, 4, 5, 6, 8, 9]  # a record is numbered by its last line
    assert "code" in lines[3] and 'nation "1<>" is not a 3-letter federation code' in lines[3]
    assert "name must not begin with" in lines[4] and "did you mean ITA" in lines[4]
    assert "U+0000" in lines[5] and "e-mail is longer than 254 characters" in lines[5]
    assert "U+0009" in lines[6] and "person" in lines[6]
    assert "U+000A" in lines[8]
    assert "name is longer than 200 characters" in lines[9]


def test_every_sentence_of_the_rules_has_a_translatable_twin():
    """The pages and the API say the engine's sentences through gettext (apps/entrants/
    fields.py); in English they are the engine's own words."""
    assert set(fields.MESSAGES) == set(rules.MESSAGES)
    for kind, sentence in rules.MESSAGES.items():
        assert str(fields.MESSAGES[kind]) == sentence, kind
    problem = check_nation("DEU")[1][0]
    assert fields.problem_message(problem) == problem.message
