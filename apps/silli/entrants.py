"""Entrants as the engine sees them, and the entrant CSV of INTERFACES.md.

The CSV is UTF-8 with a header row. Columns: ``code`` (required, unique),
``name`` (required), ``nation`` (three letters, required), ``rating`` (integer,
optional), ``person`` (optional, defaults to ``code``), ``email`` (optional).
Parsing is all-or-nothing: :func:`parse_entrants_csv` either returns every
entrant or raises :class:`EntrantCsvError` listing every bad row.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass

COLUMNS = ("code", "name", "nation", "rating", "person", "email")
PUBLIC_COLUMNS = COLUMNS[:5]
REQUIRED = ("code", "name", "nation")

_NATION = re.compile(r"^[A-Z]{3}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MAX_CODE_LENGTH = 32
MAX_NAME_LENGTH = 200


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
    """An entrant file that cannot be imported; ``errors`` lists every bad row."""

    def __init__(self, errors: list[RowError]) -> None:
        self.errors = errors
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
            row = {h: cell.strip() for h, cell in zip(header, record, strict=True)}
            entrant, problems = _entrant_from_row(row)
            code = row.get("code", "")
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
        raise EntrantCsvError(errors)
    if not entrants:
        raise EntrantCsvError([RowError(1, "the file has a header but no entrants")])
    return entrants


def _entrant_from_row(row: dict[str, str]) -> tuple[Entrant | None, list[str]]:
    problems: list[str] = []
    code = row.get("code", "")
    name = row.get("name", "")
    nation = row.get("nation", "").upper()
    for column, value in (("code", code), ("name", name), ("nation", nation)):
        if not value:
            problems.append(f"{column} is required")
    if code and len(code) > MAX_CODE_LENGTH:
        problems.append(f"code is longer than {MAX_CODE_LENGTH} characters")
    if code and any(c.isspace() or c in '|,"' for c in code):
        problems.append("code must not contain spaces, commas, quotes or '|'")
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name is longer than {MAX_NAME_LENGTH} characters")
    if nation and not _NATION.match(nation):
        problems.append(f"nation {row.get('nation')!r} is not a 3-letter federation code")
    rating: int | None = None
    raw_rating = row.get("rating", "")
    if raw_rating:
        try:
            rating = int(raw_rating)
        except ValueError:
            problems.append(f"rating {raw_rating!r} is not a whole number")
        else:
            if not 0 <= rating <= 4000:
                problems.append(f"rating {rating} is outside 0..4000")
    email = row.get("email", "")
    if email and not _EMAIL.match(email):
        problems.append(f"email {email!r} is not an e-mail address")
    person = row.get("person", "")
    if person and len(person) > MAX_CODE_LENGTH:
        problems.append(f"person is longer than {MAX_CODE_LENGTH} characters")
    if problems:
        return None, problems
    return Entrant(code, name, nation, rating, person or code, email), []


def entrants_csv(entrants: Iterable[Entrant], *, public: bool = False) -> str:
    """Serialise entrants as the interface CSV, in the order given.

    ``public=True`` leaves out the e-mail column: the list a stage publishes.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = PUBLIC_COLUMNS if public else COLUMNS
    writer.writerow(columns)
    for e in entrants:
        row = (e.code, e.name, e.nation, "" if e.rating is None else e.rating, e.person, e.email)
        writer.writerow(row[: len(columns)])
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
