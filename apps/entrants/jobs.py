"""Entrant imports too big for one request, run as a Celery job (:class:`ImportJob`).

A file with more than ``ENTRANT_IMPORT_JOB_ROWS`` data rows (a setting, default 5000) is not
imported in the request: :func:`start_import` stores it on a new job and queues the task
(``tasks.run_import``), and the caller answers at once with the job's progress
(:func:`job_progress`) and follows it. :func:`run_import`, in the worker:

1. claims the job (pending → running, the job's row locked; a finished job is left alone,
   so a task delivered twice does nothing the second time);
2. reads the file through the engine's rules in pieces of :data:`PIECE_ROWS` rows, counting
   the rows checked on the job in committed writes, so a progress bar moves — reading is the
   slow part of an import;
3. hands the rows read to the import actions of ``services.py`` (``import_entrants``,
   ``replace_entrants``, or for a dry run ``preview_import``, ``preview_replace``), which
   check them against the tournament and write everything in one transaction, together with
   the job's outcome — or refuse, and the job fails with every bad row and nothing written.

A stage has one unfinished import job at a time. A job that has not finished
:data:`STALLED_AFTER` after it was started (its worker was lost) no longer blocks the stage:
it is marked failed when the next import of the stage is started, or when its progress is
read. A dry run that succeeded keeps its file for :data:`KEEP_PREVIEW`, so that confirming
the preview (:func:`confirm_import`) starts the import from the very file that was checked
without the file travelling through the browser again.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.silli.entrants import COLUMNS, REQUIRED, EntrantCsvError, RowError, parse_entrant_rows
from apps.silli.entrants import Entrant as EngineEntrant
from apps.stages.models import Stage
from apps.stages.services import locked

from . import services
from .models import ImportJob

# Imports of more data rows than this run as a job (the setting ENTRANT_IMPORT_JOB_ROWS).
DEFAULT_JOB_ROWS = 5000
# The rows read between two counts of the progress (one committed write each).
PIECE_ROWS = 5000
# A job not finished this long after it was started was lost (the task runs for at most ten
# minutes, and a task whose worker died is delivered again within five).
STALLED_AFTER = timedelta(minutes=30)
# How long a succeeded dry run keeps its file for the confirmation.
KEEP_PREVIEW = timedelta(days=1)
# The progress bar: reading the file fills it up to CHECKED_PERCENT for an import (then it
# shows SAVING_PERCENT while everything is written), all the way for a dry run.
CHECKED_PERCENT = 60
SAVING_PERCENT = 80
UNFINISHED = (ImportJob.Status.PENDING, ImportJob.Status.RUNNING)


def job_rows() -> int:
    """The most data rows an import takes in the request; more run as a job."""
    return int(getattr(settings, "ENTRANT_IMPORT_JOB_ROWS", DEFAULT_JOB_ROWS))


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


def runs_as_job(rows: int) -> bool:
    """Whether an import of ``rows`` data rows runs as a job (see :func:`job_rows`)."""
    return rows > job_rows()


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
# What a job answers
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
    }


def preview_data(preview: services.ImportPreview) -> dict:
    """A dry run's answer: the preview's numbers (by code, too, in ``replace`` mode)."""
    if isinstance(preview, services.ReplacePreview):
        return replace_data(preview, applied=False)
    return {
        "count": preview.count,
        "nations": preview.nations(),
        "multi_entry_persons": preview.multi_entry_persons(),
    }


def result_data(preview: services.ImportPreview, *, applied: bool) -> dict:
    """An import's answer: ``{"imported": n}`` for an added file, the replacement by code
    for a replacing one, the preview for a dry run."""
    if isinstance(preview, services.ReplacePreview):
        return replace_data(preview, applied=applied)
    if applied:
        return {"imported": preview.count}
    return preview_data(preview)


def percent(job: ImportJob) -> int:
    """How far the job is, for a progress bar (100 only once it succeeded)."""
    if job.status == ImportJob.Status.SUCCEEDED:
        return 100
    if job.phase == ImportJob.Phase.SAVING:
        return SAVING_PERCENT
    if not job.total_rows:
        return 0
    share = 100 if job.dry_run else CHECKED_PERCENT
    return min(99, round(share * job.done_rows / job.total_rows))


def status_display(job: ImportJob) -> str:
    """The job's status in words; a running job says what it does (checking, importing)."""
    if job.status == ImportJob.Status.RUNNING and job.phase:
        return ImportJob.Phase(job.phase).label
    return ImportJob.Status(job.status).label


def job_progress(job: ImportJob) -> dict:
    """What a progress bar and a client need: status, rows checked of total, the outcome
    (``result``: the preview or what was imported) or the error with every bad row."""
    return {
        "id": job.pk,
        "stage": job.stage_id,
        "mode": job.mode,
        "dry_run": job.dry_run,
        "status": job.status,
        "status_display": str(status_display(job)),
        "phase": job.phase,
        "total_rows": job.total_rows,
        "done_rows": job.done_rows,
        "percent": percent(job),
        "error": job.error,
        "details": job.details,
        "result": job.result,
        "finished": job.finished,
    }


@dataclass(frozen=True)
class StoredEntrant:
    """An entrant a stored replacement names: by code only."""

    code: str


@dataclass(frozen=True)
class StoredChange:
    """A change a stored replacement lists: ``fields`` as ``(name, old, new)``."""

    code: str
    fields: list[tuple[str, object, object]]


@dataclass(frozen=True)
class StoredPreview:
    """A dry run's preview read back from its job (``result``), shaped as the import page
    shows a preview (:class:`services.ImportPreview`, :class:`services.ReplacePreview`)."""

    mode: str
    count: int
    nations: list[tuple[str, int]]
    multi_entry_persons: int
    added: list[StoredEntrant] = field(default_factory=list)
    changed: list[StoredChange] = field(default_factory=list)
    removed: list[StoredEntrant] = field(default_factory=list)
    unchanged: int = 0


def stored_preview(job: ImportJob) -> StoredPreview | None:
    """The preview a succeeded dry run found, or None."""
    data = job.result
    if not job.dry_run or job.status != ImportJob.Status.SUCCEEDED or not data:
        return None
    return StoredPreview(
        mode=job.mode,
        count=data["count"],
        nations=[(nation, count) for nation, count in data["nations"]],
        multi_entry_persons=data["multi_entry_persons"],
        added=[StoredEntrant(code) for code in data.get("added", [])],
        changed=[
            StoredChange(c["code"], [(name, old, new) for name, (old, new) in c["fields"].items()])
            for c in data.get("changed", [])
        ],
        removed=[StoredEntrant(code) for code in data.get("removed", [])],
        unchanged=data.get("unchanged", 0),
    )


def confirmable(job: ImportJob, now: datetime | None = None) -> bool:
    """Whether the job is a dry run whose import can still be started from its file."""
    now = now or timezone.now()
    return (
        job.dry_run
        and job.status == ImportJob.Status.SUCCEEDED
        and bool(job.csv)
        and job.finished_at is not None
        and job.finished_at > now - KEEP_PREVIEW
    )


def stalled(job: ImportJob, now: datetime | None = None) -> bool:
    """Whether the job should have finished long ago (its worker was lost)."""
    now = now or timezone.now()
    return not job.finished and job.created_at < now - STALLED_AFTER


# ---------------------------------------------------------------------------
# Starting a job (actions)
# ---------------------------------------------------------------------------


def _queue(job_id: int) -> None:
    # The task module imports this one: imported here, when the job is queued.
    from . import tasks

    tasks.run_import.delay(job_id)


def _forget_old_previews(now: datetime) -> None:
    """Let go of the files of dry runs nobody confirmed within :data:`KEEP_PREVIEW`."""
    ImportJob.objects.filter(
        dry_run=True, status=ImportJob.Status.SUCCEEDED, finished_at__lt=now - KEEP_PREVIEW
    ).exclude(csv="").update(csv="")


def _stop_stalled(stage, now: datetime) -> None:
    """Mark failed the stage's jobs that were lost (see :func:`stalled`)."""
    lost = stage.import_jobs.select_for_update().filter(
        status__in=UNFINISHED, created_at__lt=now - STALLED_AFTER
    )
    for job in lost:
        _mark_failed(job, _stalled_message())


def _stalled_message() -> str:
    return _(
        "The import stopped before it finished (its worker was lost); nothing was written. "
        "Start the import again."
    )


def _start(
    user,
    stage,
    text: str,
    *,
    mode: str,
    dry_run: bool,
    rows: int | None = None,
    preview: ImportJob | None = None,
) -> ImportJob:
    """Create and queue a job (the caller checked the permission); ``preview``: the dry run
    whose file this import takes, which lets go of it."""
    if mode not in ImportJob.Mode.values:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("An import adds to the list or replaces it (add, replace), not %(mode)s.")
            % {"mode": mode},
        )
    with transaction.atomic():
        stage = locked(stage)
        services.require_import_open(stage, mode)
        now = timezone.now()
        _forget_old_previews(now)
        _stop_stalled(stage, now)
        running = stage.import_jobs.filter(status__in=UNFINISHED).order_by("-id").first()
        if running is not None:
            raise ActionError(
                ErrorCode.CONFLICT,
                _(
                    "An import into this stage is already running (started %(when)s, "
                    "%(done)s of %(total)s rows checked). Wait for it to finish, then try "
                    "again."
                )
                % {
                    "when": timezone.localtime(running.created_at).strftime("%Y-%m-%d %H:%M"),
                    "done": running.done_rows,
                    "total": running.total_rows,
                },
            )
        if preview is not None:
            preview = ImportJob.objects.select_for_update().get(pk=preview.pk)
            if preview.stage_id != stage.pk or not confirmable(preview, now):
                raise ActionError(
                    ErrorCode.WRONG_STATUS,
                    _(
                        "This preview can no longer be confirmed: it was confirmed already, "
                        "or it is older than a day and its file is gone. Upload the file "
                        "again."
                    ),
                )
            text = preview.csv
            preview.csv = ""
            preview.save(update_fields=["csv"])
        job = ImportJob.objects.create(
            stage=stage,
            mode=mode,
            dry_run=dry_run,
            csv=text,
            total_rows=data_rows(text) if rows is None else rows,
            preview=preview,
            started_by=user if user.is_authenticated else None,
        )
        if not dry_run:
            record(
                Action.ENTRANTS_IMPORT_STARTED,
                user,
                stage=stage,
                job=job.pk,
                mode=mode,
                rows=job.total_rows,
                preview=None if preview is None else preview.pk,
            )
        transaction.on_commit(lambda: _queue(job.pk))
    return job


def start_import(
    user, stage, text: str, *, mode: str = "add", dry_run: bool = False, rows: int | None = None
) -> ImportJob:
    """Start importing an entrant CSV as a job: adding its entrants (``mode="add"``) or
    making it the stage's list (``"replace"``); a dry run only checks it and keeps the
    preview. Organizers only, while the stage's registration is open, one unfinished job per
    stage (409). ``rows``: the file's data rows, if the caller counted them already."""
    require_organizer(user, stage.tournament)
    return _start(user, stage, text, mode=mode, dry_run=dry_run, rows=rows)


def confirm_import(user, preview: ImportJob) -> ImportJob:
    """Start the import a succeeded dry run previewed, from the file it kept (refused once
    it was confirmed, or after :data:`KEEP_PREVIEW`): the same mode, nothing re-sent."""
    stage = preview.stage
    require_organizer(user, stage.tournament)
    return _start(
        user, stage, "", mode=preview.mode, dry_run=False, rows=preview.total_rows, preview=preview
    )


# ---------------------------------------------------------------------------
# Running a job (the worker)
# ---------------------------------------------------------------------------


class _Stopped(Exception):
    """The job finished while it was being read (marked failed: lost, or replaced)."""


def _mark_failed(job: ImportJob, message: str, details: list | None = None) -> None:
    """Record a job's failure; its file is let go (the caller holds the job's row lock)."""
    job.status = ImportJob.Status.FAILED
    job.error = message
    job.details = details or []
    job.csv = ""
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "error", "details", "csv", "finished_at"])
    if not job.dry_run:
        record(
            Action.ENTRANTS_IMPORT_FAILED,
            job.started_by,
            stage=job.stage,
            job=job.pk,
            error=message,
            bad_rows=len(job.details),
        )


def fail(job_id: int, message: str, details: list | None = None) -> bool:
    """Mark the job failed with ``message`` unless it has finished; True if this did."""
    with transaction.atomic():
        job = (
            ImportJob.objects.select_for_update(of=("self",))
            .select_related("stage__tournament")
            .filter(pk=job_id)
            .first()
        )
        if job is None or job.finished:
            return False
        _mark_failed(job, message, details)
    return True


def stop_if_stalled(job: ImportJob) -> ImportJob:
    """The job, marked failed first if it was lost (see :func:`stalled`): read before its
    progress is shown, so that nobody waits for it for ever."""
    if stalled(job) and fail(job.pk, _stalled_message()):
        job.refresh_from_db()
    return job


def _claim(job_id: int) -> ImportJob | None:
    """Lock the job and mark it running (checking); None if it has finished already."""
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.finished:
            return None
        job.status = ImportJob.Status.RUNNING
        job.phase = ImportJob.Phase.CHECKING
        job.done_rows = 0
        job.save(update_fields=["status", "phase", "done_rows"])
    return job


def _count(job_id: int, **values) -> None:
    """Store the job's progress (a committed write); stop if it finished meanwhile."""
    running = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.RUNNING)
    if not running.update(**values):
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
        fail(job_id, error.message, error.details)
        return ImportJob.Status.FAILED
    except _Stopped:
        return "finished"
    return _finish(job_id, parsed)


def _finish(job_id: int, parsed: services.ParsedFile) -> str:
    """Import (or preview) the rows read and record the outcome on the job, in one
    transaction: the stage is locked first, as every action on it does, then the job."""
    stage_id = ImportJob.objects.values_list("stage_id", flat=True).get(pk=job_id)
    with transaction.atomic():
        stage = Stage.objects.select_related("tournament").select_for_update().get(pk=stage_id)
        job = (
            ImportJob.objects.select_for_update(of=("self",))
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
            _mark_failed(job, error.message, error.details)
            return job.status
        job.result = result_data(preview, applied=not job.dry_run)
        job.status = ImportJob.Status.SUCCEEDED
        job.done_rows = job.total_rows
        job.finished_at = timezone.now()
        if not job.dry_run:
            job.csv = ""  # a dry run keeps its file for the confirmation
        job.save(update_fields=["result", "status", "done_rows", "finished_at", "csv"])
    return job.status
