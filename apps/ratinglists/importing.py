"""Reading a rating list's CSV: the columns, every row's checks, and the worker's body of a
:class:`~apps.ratinglists.models.RatingListImportJob`.

The file: a header row naming the columns ``id, name, federation, rating, games, title`` in
any order (``id``, ``name`` and ``federation`` are required; ``rating`` empty: unrated;
``games`` empty: 0; ``title`` empty: none), then one row per person. Each row is checked
with the entrant fields' rules (apps/silli/entrants.py): the ID as a person ID (at most 32
characters of ``A-Z a-z 0-9 . _ -``), the name (at most 200 characters, no formula prefix),
the federation (a FIDE federation code), the rating (a whole number 0–4000), the games (a
whole number ≥ 0), the title (at most 8 letters); an ID may appear once. A file with any bad
row is refused whole, every bad row listed with its line number (the header is line 1) and
reason.

The file is read twice, row by row, never held as a list of rows: once to check it (a set of
the IDs seen is all it keeps), once to write it (the rows stream into one ``COPY`` on
PostgreSQL, ``apps/core/bulk.py``), so 200,000 rows import in seconds and in little memory.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.bulk import insert_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor
from apps.entrants.fields import problem_message
from apps.silli.entrants import RowError, check_code, check_name, check_nation, check_rating

from .models import TITLE_LENGTH, RatingList, RatingListEntry, RatingListImportJob

COLUMNS = ("id", "name", "federation", "rating", "games", "title")
REQUIRED = ("id", "name", "federation")
TITLE = re.compile(rf"[A-Za-z]{{1,{TITLE_LENGTH}}}")
PROGRESS_EVERY = 10_000
"""A job saves its count of rows checked this often."""

Values = tuple[str, str, str, int | None, int, str]
"""A good row: ID, name, federation, rating, games, title."""


@dataclass
class Checked:
    """What checking a file found: its data rows, the bad ones, and the preview's numbers."""

    rows: int = 0
    errors: list[RowError] = field(default_factory=list)
    rated: int = 0
    federations: Counter[str] = field(default_factory=Counter)
    titles: Counter[str] = field(default_factory=Counter)

    @property
    def good(self) -> bool:
        return not self.errors and self.rows > 0

    def preview(self) -> dict:
        """The preview as JSON: rows, rated and unrated, federations and titles by count."""
        return {
            "rows": self.rows,
            "rated": self.rated,
            "unrated": self.rows - self.rated,
            "federations": self.federations.most_common(),
            "titles": self.titles.most_common(),
        }

    def details(self) -> list[dict]:
        return [{"line": e.line, "message": e.message} for e in self.errors]


def _header(reader) -> list[str]:
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise bad_file([RowError(1, _("the file is empty; expected a header row"))]) from None
    except csv.Error as exc:
        raise bad_file([RowError(1, _("unreadable CSV: %(error)s") % {"error": exc})]) from None
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0][1:]
    problems = []
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        problems.append(
            _("unknown column(s) %(unknown)s; the columns are %(columns)s")
            % {"unknown": ", ".join(unknown), "columns": ", ".join(COLUMNS)}
        )
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        problems.append(_("missing column(s) %(missing)s") % {"missing": ", ".join(missing)})
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        problems.append(_("column(s) %(twice)s appear twice") % {"twice": ", ".join(twice)})
    if problems:
        raise bad_file([RowError(1, "; ".join(problems))])
    return header


def _check_row(row: dict[str, str]) -> tuple[Values | None, list[str]]:
    problems: list[str] = []
    person, found = check_code(row["id"], field="ID")
    name, more = check_name(row["name"])
    found += more
    federation, more = check_nation(row["federation"])
    found += more
    rating, more = check_rating(row.get("rating", ""))
    found += more
    problems += [problem_message(p) for p in found]
    games_text = row.get("games", "").strip()
    games = 0
    if games_text:
        if games_text.isascii() and games_text.isdigit() and len(games_text) <= 6:
            games = int(games_text)
        else:
            problems.append(
                _("games %(value)r is not a whole number of games") % {"value": games_text[:20]}
            )
    title = row.get("title", "").strip()
    if title and not TITLE.fullmatch(title):
        problems.append(
            _("title %(value)r is not a title (at most %(limit)s letters)")
            % {"value": title[:20], "limit": TITLE_LENGTH}
        )
    if problems:
        return None, problems
    return (person, name, federation, rating, games, title.upper()), []


def read_rows(text: str) -> Iterator[tuple[int, Values | None, list[str]]]:
    """Every data row: its line number, its values (None when bad) and its problems. The
    header's problems raise the refusal at once; an ID seen before is a problem of its row."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header = _header(reader)
    first_line: dict[str, int] = {}
    try:
        for record in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                yield (
                    line,
                    None,
                    [
                        _("has %(count)s field(s), the header has %(header)s")
                        % {"count": len(record), "header": len(header)}
                    ],
                )
                continue
            values, problems = _check_row(dict(zip(header, record, strict=True)))
            person = record[header.index("id")].strip()
            if person in first_line:
                problems.append(
                    _("ID %(id)r is on line %(line)s already")
                    % {"id": person, "line": first_line[person]}
                )
                values = None
            elif person:
                first_line[person] = line
            yield line, values, problems
    except csv.Error as exc:
        yield reader.line_num, None, [_("unreadable CSV: %(error)s") % {"error": exc}]


def check_file(text: str, progress: Callable[[int], None] | None = None) -> Checked:
    """Check every row of ``text`` (``progress`` is called with the rows checked so far every
    :data:`PROGRESS_EVERY` rows)."""
    checked = Checked()
    for line, values, problems in read_rows(text):
        checked.rows += 1
        if problems or values is None:
            checked.errors.append(RowError(line, "; ".join(problems)))
        else:
            checked.rated += values[3] is not None
            checked.federations[values[2]] += 1
            if values[5]:
                checked.titles[values[5]] += 1
        if progress is not None and checked.rows % PROGRESS_EVERY == 0:
            progress(checked.rows)
    if not checked.rows and not checked.errors:
        checked.errors.append(RowError(1, _("the file has a header but no rows")))
    return checked


def bad_file(errors: list[RowError]) -> ActionError:
    """The refusal of a file with bad rows: every one listed (line, message)."""
    shown = "; ".join(f"{_('line')} {e.line}: {e.message}" for e in errors[:3])
    more = len(errors) - 3
    if more > 0:
        shown += " " + _("(and %(more)s more)") % {"more": more}
    return ActionError(
        ErrorCode.BAD_ROWS,
        _(
            "The rating list has %(count)s bad row(s), so nothing was imported — %(shown)s. "
            "Correct them and import the file again."
        )
        % {"count": len(errors), "shown": shown},
        [{"line": e.line, "message": e.message} for e in errors],
    )


def same_list_exists(name: str, list_date: date) -> ActionError:
    return ActionError(
        ErrorCode.CONFLICT,
        _(
            "There is a rating list %(name)s of %(date)s already. Give this one another name "
            "or date."
        )
        % {"name": name, "date": list_date.isoformat()},
    )


def write_list(
    user: Actor | None, *, name: str, list_date: date, source: str, text: str, rows: int
) -> RatingList:
    """Write the list and every row of ``text`` (checked already) in the caller's
    transaction, and its audit event."""
    if RatingList.objects.filter(name=name, list_date=list_date).exists():
        raise same_list_exists(name, list_date)
    try:
        with transaction.atomic():
            rating_list = RatingList.objects.create(
                name=name,
                list_date=list_date,
                source=source,
                uploaded_by=user if user is not None and user.is_authenticated else None,
                entry_count=rows,
            )
    except IntegrityError as error:  # the same list, imported at the same moment
        raise same_list_exists(name, list_date) from error
    insert_rows(
        RatingListEntry,
        ("rating_list_id", "person", "name", "federation", "rating", "games", "title"),
        ((rating_list.pk, *values) for _line, values, _problems in read_rows(text) if values),
    )
    record(
        Action.RATING_LIST_IMPORTED,
        user,
        rating_list=rating_list.pk,
        name=name,
        list_date=list_date.isoformat(),
        rows=rows,
    )
    return rating_list


# ---------------------------------------------------------------------------
# The job's body (tasks.run_import)
# ---------------------------------------------------------------------------


def run_import(job_id: int) -> str:
    """Check the job's file, then (unless it is a dry run) write the list, all in one
    transaction with the job's outcome; a bad file fails the job with every bad row."""
    job = RatingListImportJob.objects.filter(pk=job_id).first()
    if job is None or job.finished:
        return "nothing to do"
    RatingListImportJob.objects.filter(pk=job.pk).update(
        status=RatingListImportJob.Status.RUNNING,
        phase=RatingListImportJob.Phase.CHECKING,
        updated_at=timezone.now(),
    )

    def progress(done: int) -> None:
        RatingListImportJob.objects.filter(pk=job.pk).update(
            done_rows=done, updated_at=timezone.now()
        )

    try:
        checked = check_file(job.csv, progress)
    except ActionError as header:  # the header
        RatingListImportJob.objects.filter(pk=job.pk).update(details=header.details)
        RatingListImportJob.fail(job.pk, header.message)
        return "bad header"
    if not checked.good:
        refusal = bad_file(checked.errors)
        RatingListImportJob.objects.filter(pk=job.pk).update(
            details=refusal.details, done_rows=checked.rows
        )
        RatingListImportJob.fail(job.pk, refusal.message)
        return "bad rows"
    with transaction.atomic():
        locked = RatingListImportJob.objects.select_for_update(no_key=True).get(pk=job.pk)
        if locked.finished:
            return "finished already"
        locked.done_rows = checked.rows
        locked.total_rows = checked.rows
        outcome = checked.preview()
        if not locked.dry_run:
            locked.phase = RatingListImportJob.Phase.SAVING
            locked.save(update_fields=["phase", "updated_at"])
            try:
                with transaction.atomic():
                    rating_list = write_list(
                        locked.started_by,
                        name=locked.name,
                        list_date=locked.list_date,
                        source=locked.source,
                        text=locked.csv,
                        rows=checked.rows,
                    )
            except ActionError as error:
                locked.mark_failed(error.message)
                return "refused"
            locked.rating_list = rating_list
            outcome["rating_list"] = rating_list.pk
        locked.result = outcome
        locked.status = RatingListImportJob.Status.SUCCEEDED
        locked.finished_at = timezone.now()
        locked.csv = ""
        locked.save()
    return "imported" if not job.dry_run else "checked"
