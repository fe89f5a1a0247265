"""Running an entrant import job (:class:`~apps.entrants.models.ImportJob`), in the worker.

:func:`run_import` is the body of the job's task (``tasks.run_import``):

1. it claims the job (pending → running, the job's row locked; a finished job is left alone,
   so a task delivered twice does nothing the second time);
2. it reads the file through the engine's rules in pieces of :data:`PIECE_ROWS` rows,
   counting the rows checked on the job in committed writes (each one a heartbeat), so a
   progress bar moves — reading is the slow part of an import;
3. it hands the rows read to the import actions of ``services.py`` (``import_entrants``,
   ``replace_entrants``, or for a dry run ``preview_import``, ``preview_replace``), which
   check them against the tournament and write everything in one transaction, together with
   the job's outcome — or refuse, and the job fails with every bad row and nothing written.

What an import answers (:func:`result_data`, :func:`preview_data`, :func:`replace_data`) is
here too: an import small enough for its request answers the same. Starting a job, and what
its pages show, is ``jobs.py``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import asdict, dataclass

from django.db import transaction
from django.utils import timezone

from apps.core.errors import ActionError
from apps.silli.entrants import COLUMNS, REQUIRED, EntrantCsvError, RowError, parse_entrant_rows
from apps.silli.entrants import Entrant as EngineEntrant
from apps.stages.models import Stage
from apps.stages.services import locked

from . import services
from .models import ImportJob

# The rows read between two counts of the progress (one committed write each).
PIECE_ROWS = 5000


def _filled(record: list[str]) -> bool:
    """Whether a CSV record is a row at all (the engine skips blank ones)."""
    return any(cell.strip() for cell in record)


def _without_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def data_rows(text: str) -> int:
    """How many data rows (records that are not blank, after the header) the CSV has: what
    decides whether its import runs as a job. A file the CSV reader cannot read through is
    counted by its lines."""
    text = _without_bom(text)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        next(reader, None)
        return sum(1 for record in reader if _filled(record))
    except csv.Error:
        return max(0, len(text.splitlines()) - 1)


# ---------------------------------------------------------------------------
# Reading a file in pieces
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Piece:
    """Some rows of a file with its header before them, readable on their own; ``offset``
    turns a line number in the piece into the file's."""

    text: str
    offset: int
    rows: int


def _usable_header(header: list[str]) -> bool:
    """A header the engine accepts (otherwise the whole file is read at once and refused)."""
    return (
        set(header) <= set(COLUMNS)
        and all(column in header for column in REQUIRED)
        and len(set(header)) == len(header)
    )


def _pieces(text: str, size: int) -> list[_Piece] | None:
    """The file cut after every ``size`` data rows, each piece with the header before it.

    Read piece by piece, the engine finds exactly what it finds in the whole file (the same
    rows, the same messages, the line numbers moved by the offset) unless a row's problem
    reaches across rows: a code used twice (its message names the first line), or a file the
    CSV reader gives up on (nothing after that point is read). Then, and for a header the
    engine refuses, there are no pieces (None): the file is read in one go."""
    lines = io.StringIO(_without_bom(text), newline="").readlines()
    reader = csv.reader(lines)
    pieces: list[_Piece] = []
    try:
        first = next(reader, None)
        header = [h.strip().lower() for h in first or []]
        if not _usable_header(header):
            return None
        head = reader.line_num
        code_at = header.index("code")
        codes: set[str] = set()
        start, rows = head, 0
        for record in reader:
            if not _filled(record):
                continue
            if len(record) == len(header):
                code = record[code_at].strip()
                if code in codes:
                    return None
                if code:
                    codes.add(code)
            rows += 1
            if rows == size:
                end = reader.line_num
                pieces.append(_Piece("".join(lines[:head] + lines[start:end]), start - head, rows))
                start, rows = end, 0
    except csv.Error:
        return None
    if rows:
        pieces.append(_Piece("".join(lines[:head] + lines[start:]), start - head, rows))
    return pieces or None


def read_file(
    text: str, progress: Callable[[int], None] | None = None, *, size: int | None = None
) -> services.ParsedFile:
    """Read an entrant CSV as :func:`services.parse_file` does, in pieces of ``size`` data
    rows (default :data:`PIECE_ROWS`), calling ``progress(rows read so far)`` after each
    piece (see :func:`_pieces` for the files read in one go). Refuses a file without one
    good row as ``parse_file`` does."""
    pieces = _pieces(text, size or PIECE_ROWS)
    if pieces is None:
        parsed = services.parse_file(text)
        if progress is not None:
            progress(data_rows(text))
        return parsed
    rows: list[tuple[int, EngineEntrant]] = []
    errors: list[RowError] = []
    done = 0
    for piece in pieces:
        try:
            good, bad = parse_entrant_rows(piece.text), []
        except EntrantCsvError as exc:
            good, bad = exc.good, exc.errors
        rows += [(line + piece.offset, entrant) for line, entrant in good]
        errors += [RowError(e.line + piece.offset, e.message) for e in bad]
        done += piece.rows
        if progress is not None:
            progress(done)
    return services.checked_file(rows, errors)


# ---------------------------------------------------------------------------
# What an import answers
# ---------------------------------------------------------------------------


def replace_data(preview: services.ReplacePreview, *, applied: bool) -> dict:
    """A replacing import (or its preview) by code: who is added, changed and removed."""
    return {
        "mode": "replace",
        "applied": applied,
        "count": preview.count,
        "nations": preview.nations(),
        "multi_entry_persons": preview.multi_entry_persons(),
        "added": [e.code for e in preview.added],
        "changed": [
            {"code": c.code, "fields": {name: [old, new] for name, old, new in c.fields()}}
            for c in preview.changed
        ],
        "removed": [e.code for e in preview.removed],
        "unchanged": preview.unchanged,
        "known_people": known_data(preview),
    }


def known_data(preview: services.ImportPreview) -> list[dict]:
    """The rows whose rating-list ID is a person's the site knows already."""
    return [asdict(k) for k in preview.known]


def preview_data(preview: services.ImportPreview) -> dict:
    """A dry run's answer: the preview's numbers (by code, too, in ``replace`` mode)."""
    if isinstance(preview, services.ReplacePreview):
        return replace_data(preview, applied=False)
    return {
        "count": preview.count,
        "nations": preview.nations(),
        "multi_entry_persons": preview.multi_entry_persons(),
        "known_people": known_data(preview),
    }


def result_data(preview: services.ImportPreview, *, applied: bool) -> dict:
    """An import's answer: ``{"imported": n}`` for an added file, the replacement by code
    for a replacing one, the preview for a dry run."""
    if isinstance(preview, services.ReplacePreview):
        return replace_data(preview, applied=applied)
    if applied:
        return {"imported": preview.count}
    return preview_data(preview)


# ---------------------------------------------------------------------------
# Running a job
# ---------------------------------------------------------------------------


class _Stopped(Exception):
    """The job finished while it was being read (marked failed: lost, or replaced)."""


def _claim(job_id: int) -> ImportJob | None:
    """Lock the job and mark it running (checking); None if it has finished already."""
    with transaction.atomic():
        job = ImportJob.objects.select_for_update(no_key=True).filter(pk=job_id).first()
        if job is None or job.finished:
            return None
        job.status = ImportJob.Status.RUNNING
        job.phase = ImportJob.Phase.CHECKING
        job.done_rows = 0
        job.save(update_fields=["status", "phase", "done_rows", "updated_at"])
    return job


def _count(job_id: int, **values) -> None:
    """Store the job's progress (a committed write, and a heartbeat); stop if it finished
    meanwhile."""
    running = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.RUNNING)
    if not running.update(**values, updated_at=timezone.now()):
        raise _Stopped(job_id)


def run_import(job_id: int) -> str:
    """Run the job (the task's body): read the file counting the rows, then import it — or,
    for a dry run, preview it — in one transaction. Returns the job's status."""
    job = _claim(job_id)
    if job is None:
        return "finished"
    try:
        parsed = read_file(job.csv, lambda done: _count(job_id, done_rows=done))
        if not job.dry_run:
            _count(job_id, phase=ImportJob.Phase.SAVING, done_rows=job.total_rows)
    except ActionError as error:
        ImportJob.fail(job_id, error.message, details=error.details or [])
        return ImportJob.Status.FAILED
    except _Stopped:
        return "finished"
    return _finish(job_id, parsed)


def _finish(job_id: int, parsed: services.ParsedFile) -> str:
    """Import (or preview) the rows read and record the outcome on the job, in one
    transaction: the stage is locked first, as every action on it does, then the job."""
    stage_id = ImportJob.objects.values_list("stage_id", flat=True).get(pk=job_id)
    with transaction.atomic():
        stage = locked(Stage(pk=stage_id))
        job = (
            ImportJob.objects.select_for_update(no_key=True, of=("self",))
            .select_related("started_by")
            .get(pk=job_id)
        )
        if job.finished:
            return "finished"
        job.stage = stage
        replace = job.mode == ImportJob.Mode.REPLACE
        preview: services.ImportPreview
        try:
            if job.dry_run and replace:
                preview = services.preview_replace(stage, parsed)
            elif job.dry_run:
                preview = services.preview_import(stage, parsed)
            elif replace:
                preview = services.replace_entrants(job.started_by, stage, parsed, job=job.pk)
            else:
                preview = services.import_entrants(job.started_by, stage, parsed, job=job.pk)
        except ActionError as error:
            job.mark_failed(error.message, details=error.details or [])
            return job.status
        job.result = result_data(preview, applied=not job.dry_run)
        job.status = ImportJob.Status.SUCCEEDED
        job.done_rows = job.total_rows
        job.finished_at = timezone.now()
        if not job.dry_run:
            job.csv = ""  # a dry run keeps its file for the confirmation
        job.save(
            update_fields=["result", "status", "done_rows", "finished_at", "csv", "updated_at"]
        )
    return job.status
