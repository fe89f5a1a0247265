"""Entrants as the engine sees them, the entrant CSV of docs/interfaces.md §1, and the rules
every entrant field obeys.

The CSV is UTF-8 with a header row. Columns: ``code`` (required, unique),
``name`` (required), ``nation`` (a FIDE federation code, required), ``rating``
(integer, optional), ``person`` (optional, defaults to ``code``), ``email`` (optional).
Parsing is all-or-nothing: :func:`parse_entrants_csv` either returns every
entrant or raises :class:`EntrantCsvError` listing every bad row.

The field rules live here, in one place, and the CSV parser, the entrant forms and the API
serializers all call them (:func:`check_entrant` and the ``check_*`` functions):

* no text field may hold a control character (Unicode categories Cc and Cf — NUL, tab,
  newline, zero-width and direction marks —, surrogates, line and paragraph separators);
  surrounding spaces are trimmed;
* ``code`` and ``person``: at most 32 characters of ``A-Z a-z 0-9 . _ -``, beginning with a
  letter or a digit (they appear in CSV files, addresses and the published entrant list);
* ``name``: at most 200 characters, not beginning with ``=``, ``+``, ``-`` or ``@``
  (a spreadsheet would run it as a formula);
* ``nation``: a FIDE federation code (``data/fide_federations.csv``); an unknown one is refused
  with the closest codes as suggestions;
* ``rating``: a whole number in 0..4000;
* ``email``: at most 254 characters, an e-mail address.
"""

from __future__ import annotations

import csv
import difflib
import functools
import hashlib
import io
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

COLUMNS = ("code", "name", "nation", "rating", "person", "email")
PUBLIC_COLUMNS = COLUMNS[:5]
REQUIRED = ("code", "name", "nation")

MAX_CODE_LENGTH = 32
MAX_NAME_LENGTH = 200
MAX_PERSON_LENGTH = 32
MAX_EMAIL_LENGTH = 254
MIN_RATING, MAX_RATING = 0, 4000
# The longest value of each text field (``nation`` is always three letters).
LIMITS: Mapping[str, int] = {
    "code": MAX_CODE_LENGTH,
    "name": MAX_NAME_LENGTH,
    "nation": 3,
    "person": MAX_PERSON_LENGTH,
    "email": MAX_EMAIL_LENGTH,
}
# Codes and persons: safe in a CSV cell, an address and a file name.
CODE_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]*"
# What a spreadsheet reads as the start of a formula ("CSV injection"): the one guard of every
# text field that reaches a CSV. The fields' rules refuse a value beginning with one of them
# (names and e-mail addresses; codes, persons and nations cannot), and every CSV written
# neutralises one that slipped in (:func:`neutralised` here, ``apps.core.csvfiles.safe_cell``
# for the other downloads, which adds tab and carriage return).
FORMULA_PREFIXES = ("=", "+", "-", "@")

_CODE = re.compile(CODE_PATTERN)
_NATION = re.compile(r"[A-Z]{3}")
_EMAIL = re.compile(
    r"(?P<local>[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*)"
    r"@(?P<domain>(?:[^\W_](?:[\w-]*[^\W_])?\.)+[^\W\d_](?:[\w-]*[^\W_])?)"
)
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
FEDERATIONS_FILE = "fide_federations.csv"

# Country codes people type by mistake for a FIDE code (ISO 3166 alpha-3 and the like).
_NATION_ALIASES: Mapping[str, tuple[str, ...]] = {
    "ARE": ("UAE",),
    "BGR": ("BUL",),
    "CHE": ("SUI",),
    "DEU": ("GER",),
    "DNK": ("DEN",),
    "GBR": ("ENG", "SCO", "WLS"),
    "GRC": ("GRE",),
    "HRV": ("CRO",),
    "IDN": ("INA",),
    "IRN": ("IRI",),
    "LVA": ("LAT",),
    "MYS": ("MAS",),
    "NGA": ("NGR",),
    "NLD": ("NED",),
    "PHL": ("PHI",),
    "PRT": ("POR",),
    "PRY": ("PAR",),
    "SAU": ("KSA",),
    "SVN": ("SLO",),
    "URY": ("URU",),
    "VNM": ("VIE",),
    "XKX": ("KOS",),
    "ZAF": ("RSA",),
}


# ---------------------------------------------------------------------------
# The field rules
# ---------------------------------------------------------------------------

# Each problem's sentence in English, by kind; ``%(field)s`` is the field's word. The pages
# and the API translate the same kinds (apps/entrants/fields.py).
MESSAGES: Mapping[str, str] = {
    "required": "%(field)s is required",
    "too_long": "%(field)s is longer than %(limit)s characters",
    "control": (
        "%(field)s contains the control character %(char)s (position %(position)s); remove it"
    ),
    "formula": ("%(field)s must not begin with %(char)s: spreadsheets would run it as a formula"),
    "code_chars": (
        "%(field)s %(value)s may hold only letters A-Z, digits, '.', '_' and '-', and must "
        "begin with a letter or a digit"
    ),
    "nation_format": "nation %(value)s is not a 3-letter federation code",
    "nation_format_suggest": (
        "nation %(value)s is not a 3-letter federation code (did you mean %(suggestions)s?)"
    ),
    "nation_unknown": "nation %(value)s is not a FIDE federation code",
    "nation_unknown_suggest": (
        "nation %(value)s is not a FIDE federation code (did you mean %(suggestions)s?)"
    ),
    "rating_number": "rating %(value)s is not a whole number",
    "rating_range": "rating %(value)s is outside %(min)s..%(max)s",
    "email": "e-mail %(value)s is not an e-mail address",
}
# How the sentences name each field.
FIELD_WORDS: Mapping[str, str] = {"email": "e-mail"}


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """Why one field's value is refused: the field, the kind of problem (a key of
    :data:`MESSAGES`) and the particulars the sentence names."""

    field: str
    kind: str
    params: tuple[tuple[str, str], ...] = ()

    def values(self) -> dict[str, str]:
        return dict(self.params)

    @property
    def message(self) -> str:
        word = FIELD_WORDS.get(self.field, self.field)
        return MESSAGES[self.kind] % {"field": word, **self.values()}

    def __str__(self) -> str:
        return self.message


def _problem(field: str, kind: str, **params: object) -> FieldProblem:
    return FieldProblem(field, kind, tuple((k, str(v)) for k, v in params.items()))


def shown(value: str, limit: int = 40) -> str:
    """A value as a message quotes it: in double quotes, invisible characters escaped,
    a long value cut short."""
    cut = value if len(value) <= limit else value[: limit - 1] + "…"
    escaped = "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in cut
    )
    return f'"{escaped}"'


def control_character(value: str) -> tuple[int, str] | None:
    """The first forbidden character of ``value`` (1-based position, ``U+XXXX``), if any:
    categories Cc and Cf (NUL, tab, newline, zero-width and direction marks), surrogates, and
    line and paragraph separators. Other spaces (no-break space) are allowed."""
    if value.isprintable():  # the fast path: printable means none of these categories
        return None
    for position, char in enumerate(value, start=1):
        if unicodedata.category(char) in _FORBIDDEN_CATEGORIES:
            return position, f"U+{ord(char):04X}"
    return None


def check_text(
    field: str,
    value: str,
    *,
    limit: int,
    required: bool = True,
    formula: bool = False,
) -> tuple[str, list[FieldProblem]]:
    """Any text field: no control character, trimmed, not empty (when ``required``), at most
    ``limit`` characters, and (``formula=True``) not beginning with a formula prefix. Returns
    the trimmed value and the problems (empty when the value is good)."""
    found = control_character(value)
    if found is not None:
        position, char = found
        return value, [_problem(field, "control", char=char, position=position)]
    value = value.strip()
    if not value:
        return value, [_problem(field, "required")] if required else []
    problems = []
    if len(value) > limit:
        problems.append(_problem(field, "too_long", limit=limit))
    if formula and value.startswith(FORMULA_PREFIXES):
        problems.append(_problem(field, "formula", char=shown(value[0])))
    return value, problems


def check_code(
    value: str, *, field: str = "code", required: bool = True
) -> tuple[str, list[FieldProblem]]:
    """An entrant code (or a person): at most 32 characters of ``A-Z a-z 0-9 . _ -``,
    beginning with a letter or a digit."""
    value, problems = check_text(field, value, limit=MAX_CODE_LENGTH, required=required)
    if value and not problems and not _CODE.fullmatch(value):
        problems.append(_problem(field, "code_chars", value=shown(value)))
    return value, problems


def check_person(value: str) -> tuple[str, list[FieldProblem]]:
    """The person an entry belongs to (optional; the entry's code when empty)."""
    return check_code(value, field="person", required=False)


def check_name(value: str, *, required: bool = True) -> tuple[str, list[FieldProblem]]:
    """A name: at most 200 characters, not beginning with ``= + - @``."""
    return check_text("name", value, limit=MAX_NAME_LENGTH, required=required, formula=True)


def neutralised(value: str) -> str:
    """``value`` as a spreadsheet shows it as text: behind a single quote if it begins with a
    formula prefix (as ``apps.core.csvfiles.safe_cell`` writes it)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def check_email(value: str) -> tuple[str, list[FieldProblem]]:
    """An e-mail address (optional): at most 254 characters, ``local@domain.tld``, and (as a
    name) not beginning with ``= + - @``."""
    value, problems = check_text("email", value, limit=MAX_EMAIL_LENGTH, required=False)
    if value and not problems:
        match = _EMAIL.fullmatch(value)
        if match is None or len(match["local"]) > 64:
            problems.append(_problem("email", "email", value=shown(value)))
        elif value.startswith(FORMULA_PREFIXES):
            problems.append(_problem("email", "formula", char=shown(value[0])))
    return value, problems


def check_rating(value: str | int | None) -> tuple[int | None, list[FieldProblem]]:
    """A rating (optional): a whole number in 0..4000."""
    if value is None:
        return None, []
    if isinstance(value, bool):
        return None, [_problem("rating", "rating_number", value=repr(str(value)))]
    if isinstance(value, str):
        text, problems = check_text("rating", value, limit=12, required=False)
        if problems:
            problems = [p for p in problems if p.kind == "control"] or [
                _problem("rating", "rating_number", value=repr(value.strip()[:20]))
            ]
            return None, problems
        if not text:
            return None, []
        try:
            value = int(text)
        except ValueError:
            return None, [_problem("rating", "rating_number", value=repr(text))]
    if not MIN_RATING <= value <= MAX_RATING:
        return None, [
            _problem("rating", "rating_range", value=value, min=MIN_RATING, max=MAX_RATING)
        ]
    return value, []


@functools.cache
def federations() -> Mapping[str, str]:
    """FIDE's federation codes with their names, from ``data/fide_federations.csv``."""
    text = resources.files(__package__).joinpath("data", FEDERATIONS_FILE).read_text("utf-8")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    rows = list(csv.reader(lines))
    if rows[0] != ["code", "name"]:
        raise ValueError(f"{FEDERATIONS_FILE}: expected the header code,name")
    return {code: name for code, name in rows[1:]}


def nation_suggestions(value: str, limit: int = 3) -> list[str]:
    """The FIDE codes closest to ``value``: a federation's name typed instead of its code,
    a common country code (DEU, NLD, GBR …), then the codes that look most alike."""
    feds = federations()
    wanted = value.strip().upper()
    by_name = {name.upper(): code for code, name in feds.items()}
    found: list[str] = []
    if wanted in by_name:
        found.append(by_name[wanted])
    found += _NATION_ALIASES.get(wanted, ())
    like_codes = difflib.get_close_matches(wanted, list(feds), n=limit, cutoff=0.6)
    like_codes.sort(key=lambda code: code[:1] != wanted[:1])  # the same first letter first
    like_names = [
        by_name[name]
        for name in difflib.get_close_matches(wanted, list(by_name), n=limit, cutoff=0.75)
    ]
    # Three letters look like a mistyped code; more look like a mistyped name.
    found += like_codes + like_names if len(wanted) <= 3 else like_names or like_codes
    return list(dict.fromkeys(found))[:limit]


def check_nation(value: str, *, required: bool = True) -> tuple[str, list[FieldProblem]]:
    """A nation: one of FIDE's federation codes (upper case; ``ita`` is ``ITA``)."""
    text, problems = check_text("nation", value, limit=MAX_NAME_LENGTH, required=required)
    if problems or not text:
        return text, problems
    code = text.upper()
    if code in federations():
        return code, []
    suggestions = nation_suggestions(code)
    kind = "nation_unknown" if _NATION.fullmatch(code) else "nation_format"
    if suggestions:
        return code, [
            _problem(
                "nation",
                f"{kind}_suggest",
                value=shown(text),
                suggestions=", ".join(suggestions),
            )
        ]
    return code, [_problem("nation", kind, value=shown(text))]


def _as_text(value: object) -> str:
    return "" if value is None else str(value)


def _rating_value(value: object) -> str | int | None:
    if value is None or isinstance(value, int | str):
        return value
    return str(value)


# The rule of each entrant field, by the field's name (the CSV's column).
FIELD_CHECKS: Mapping[str, Callable[[object], tuple[str | int | None, list[FieldProblem]]]] = {
    "code": lambda value: check_code(_as_text(value)),
    "name": lambda value: check_name(_as_text(value)),
    "nation": lambda value: check_nation(_as_text(value)),
    "rating": lambda value: check_rating(_rating_value(value)),
    "person": lambda value: check_person(_as_text(value)),
    "email": lambda value: check_email(_as_text(value)),
}


def check_fields(
    values: Mapping[str, object], *, optional: Iterable[str] = ()
) -> tuple[dict[str, str | int | None], list[FieldProblem]]:
    """The rules for the entrant fields given (a name → value mapping, e.g. the fields a form
    or a request changes): the checked values (trimmed, the nation in upper case) and every
    problem, in the order of the fields. A field named in ``optional`` may be left empty."""
    skip = set(optional)
    unknown = sorted(set(values) - set(FIELD_CHECKS))
    if unknown:
        raise ValueError(f"not an entrant field: {', '.join(unknown)}")
    checked: dict[str, str | int | None] = {}
    problems: list[FieldProblem] = []
    for name in COLUMNS:
        if name not in values:
            continue
        value, found = FIELD_CHECKS[name](values[name])
        if name in skip:
            found = [p for p in found if p.kind != "required"]
        checked[name] = value
        problems += found
    return checked, problems


def check_entrant(
    *,
    code: str,
    name: str,
    nation: str,
    rating: str | int | None = None,
    person: str = "",
    email: str = "",
) -> tuple[Entrant | None, list[FieldProblem]]:
    """Every field of one entrant: the entrant (values trimmed, the nation in upper case,
    ``person`` defaulting to ``code``), or None and every problem found."""
    values = {
        "code": code,
        "name": name,
        "nation": nation,
        "rating": rating,
        "person": person,
        "email": email,
    }
    checked, problems = check_fields(values)
    if problems:
        return None, problems
    rating_value = checked["rating"]
    return (
        Entrant(
            str(checked["code"]),
            str(checked["name"]),
            str(checked["nation"]),
            rating_value if isinstance(rating_value, int) else None,
            str(checked["person"]) or str(checked["code"]),
            str(checked["email"]),
        ),
        [],
    )


# ---------------------------------------------------------------------------
# The entrant record and its CSV
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entrant:
    """One entry of a stage: an entrant code, its nation and its person.

    ``person`` groups the entries of one person (they never share a group);
    it defaults to the entry's own code.
    """

    code: str
    name: str
    nation: str
    rating: int | None = None
    person: str = ""
    email: str = ""

    def __post_init__(self) -> None:
        if not self.person:
            object.__setattr__(self, "person", self.code)


@dataclass(frozen=True, slots=True)
class RowError:
    """A bad row: its line number in the file (the header is line 1) and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class EntrantCsvError(ValueError):
    """An entrant file that cannot be imported; ``errors`` lists every bad row, ``good`` the
    rows that passed (with their line numbers), so a caller can check those further and
    report every bad row at once."""

    def __init__(
        self, errors: list[RowError], good: list[tuple[int, Entrant]] | None = None
    ) -> None:
        self.errors = errors
        self.good = good or []
        shown = "; ".join(str(e) for e in errors[:20])
        more = f" (and {len(errors) - 20} more)" if len(errors) > 20 else ""
        super().__init__(f"{len(errors)} bad row(s): {shown}{more}")


def parse_entrants_csv(text: str) -> list[Entrant]:
    """Parse an entrant CSV; raise :class:`EntrantCsvError` listing every bad row."""
    return [entrant for _, entrant in parse_entrant_rows(text)]


def parse_entrant_rows(text: str) -> list[tuple[int, Entrant]]:
    """Like :func:`parse_entrants_csv`, with each entrant's line number in the file."""
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise EntrantCsvError([RowError(1, "the file is empty; expected a header row")]) from None
    except csv.Error as exc:
        raise EntrantCsvError([RowError(1, f"unreadable CSV: {exc}")]) from None
    header_errors = []
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        header_errors.append(
            RowError(1, f"unknown column(s) {', '.join(unknown)}; allowed: {', '.join(COLUMNS)}")
        )
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        header_errors.append(RowError(1, f"missing required column(s) {', '.join(missing)}"))
    duplicated = sorted({h for h in header if header.count(h) > 1})
    if duplicated:
        header_errors.append(RowError(1, f"column(s) {', '.join(duplicated)} appear twice"))
    if header_errors:
        raise EntrantCsvError(header_errors)

    entrants: list[tuple[int, Entrant]] = []
    errors: list[RowError] = []
    first_line_of_code: dict[str, int] = {}
    try:
        for record in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                errors.append(
                    RowError(line, f"has {len(record)} field(s), the header has {len(header)}")
                )
                continue
            # Cells are checked as they are (a tab or a newline in one is refused), then trimmed.
            row = dict(zip(header, record, strict=True))
            entrant, problems = _entrant_from_row(row)
            code = row.get("code", "").strip()
            if code in first_line_of_code:
                problems.append(
                    f"duplicate code {code!r} (first used on line {first_line_of_code[code]})"
                )
            elif code:
                first_line_of_code[code] = line
            if problems or entrant is None:
                errors.append(RowError(line, "; ".join(problems)))
                continue
            entrants.append((line, entrant))
    except csv.Error as exc:
        errors.append(RowError(reader.line_num, f"unreadable CSV: {exc}"))
    if errors:
        raise EntrantCsvError(errors, entrants)
    if not entrants:
        raise EntrantCsvError([RowError(1, "the file has a header but no entrants")])
    return entrants


def _entrant_from_row(row: dict[str, str]) -> tuple[Entrant | None, list[str]]:
    entrant, problems = check_entrant(
        code=row.get("code", ""),
        name=row.get("name", ""),
        nation=row.get("nation", ""),
        rating=row.get("rating", ""),
        person=row.get("person", ""),
        email=row.get("email", ""),
    )
    return entrant, [p.message for p in problems]


def entrants_csv(entrants: Iterable[Entrant], *, public: bool = False) -> str:
    """Serialise entrants as the interface CSV, in the order given.

    ``public=True`` leaves out the e-mail column: the list a stage publishes, written as it
    is (its digest is the draw's; the rules keep formulas out of its fields). The organizers'
    list writes a name or an address that begins with a formula prefix (stored before the
    rules refused it) behind a single quote (:func:`neutralised`).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = PUBLIC_COLUMNS if public else COLUMNS
    writer.writerow(columns)
    for e in entrants:
        rating = "" if e.rating is None else e.rating
        if public:
            writer.writerow((e.code, e.name, e.nation, rating, e.person))
        else:
            writer.writerow(
                (e.code, neutralised(e.name), e.nation, rating, e.person, neutralised(e.email))
            )
    return out.getvalue()


def canonical_order(entrants: Iterable[Entrant]) -> list[Entrant]:
    """Entrants sorted by code: the order every draw starts from."""
    return sorted(entrants, key=lambda e: e.code)


def entrants_digest(entrants: Iterable[Entrant]) -> str:
    """SHA-256 (hex) of the canonical public CSV: entrants sorted by code, the columns
    ``code,name,nation,rating,person`` (no e-mail addresses), ``\n`` line ends."""
    public = entrants_csv(canonical_order(entrants), public=True)
    return hashlib.sha256(public.encode()).hexdigest()


def parse_pairs_csv(text: str) -> list[tuple[str, str]]:
    """Parse a met-before CSV (columns ``a,b``: entrant codes that already met)."""
    return _two_columns(text, ("a", "b"), distinct=True)


def parse_earlier_groups_csv(text: str) -> dict[str, str]:
    """Parse an earlier-groups CSV (columns ``code,group``: each entrant's earlier group)."""
    return dict(_two_columns(text, ("code", "group"), distinct=False))


def _two_columns(text: str, names: tuple[str, str], *, distinct: bool) -> list[tuple[str, str]]:
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip().lower() for h in next(reader, [])]
    if tuple(header) != names:
        raise EntrantCsvError([RowError(1, f"expected exactly the columns {','.join(names)}")])
    rows: list[tuple[str, str]] = []
    errors: list[RowError] = []
    for record in reader:
        if not any(cell.strip() for cell in record):
            continue
        cells = [c.strip() for c in record]
        if len(cells) != 2 or not all(cells) or (distinct and cells[0] == cells[1]):
            need = "two different values" if distinct else "two values"
            errors.append(RowError(reader.line_num, f"needs {need} ({','.join(names)})"))
            continue
        rows.append((cells[0], cells[1]))
    if errors:
        raise EntrantCsvError(errors)
    return rows
