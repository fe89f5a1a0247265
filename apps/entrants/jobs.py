"""Entrant imports too big for one request, run as a Celery job (:class:`ImportJob`).

A file with more than ``ENTRANT_IMPORT_JOB_ROWS`` data rows (a setting, default 5000) is not
imported in the request: :func:`start_import` stores it on a new job and queues the task
(``tasks.run_import``, which runs ``importing.run_import`` in the worker), and the caller
answers at once with the job's progress (:func:`job_progress`) and follows it.

A stage has one unfinished import job at a time (a constraint of :class:`ImportJob`). A job
that has not finished ``ImportJob.TIME_LIMIT`` after it was started (its worker was lost)
no longer blocks the stage: it is marked failed when the next import of the stage is
started, or when its progress is read. A dry run that succeeded keeps its file for
:data:`KEEP_PREVIEW`, so that confirming the preview (:func:`confirm_import`) starts the
import from the very file that was checked without the file travelling through the browser
again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.jobs import percent_done
from apps.core.permissions import Actor, require_organizer
from apps.core.text import lines_with_nul
from apps.silli.entrants import RowError
from apps.stages.services import locked

from . import services, tasks
from .importing import data_rows
from .models import ImportJob
from .people import KnownPerson

# Imports of more data rows than this run as a job (the setting ENTRANT_IMPORT_JOB_ROWS).
DEFAULT_JOB_ROWS = 5000
# How long a succeeded dry run keeps its file for the confirmation.
KEEP_PREVIEW = timedelta(days=1)
# The progress bar: reading the file fills it up to CHECKED_PERCENT for an import (then it
# shows SAVING_PERCENT while everything is written), all the way for a dry run.
CHECKED_PERCENT = 60
SAVING_PERCENT = 80


def job_rows() -> int:
    """The most data rows an import takes in the request; more run as a job."""
    return int(getattr(settings, "ENTRANT_IMPORT_JOB_ROWS", DEFAULT_JOB_ROWS))


def runs_as_job(rows: int) -> bool:
    """Whether an import of ``rows`` data rows runs as a job (see :func:`job_rows`)."""
    return rows > job_rows()


# ---------------------------------------------------------------------------
# What a job shows
# ---------------------------------------------------------------------------


def percent(job: ImportJob) -> int:
    """How far the job is, for a progress bar (100 only once it succeeded)."""
    succeeded = job.status == ImportJob.Status.SUCCEEDED
    if job.phase == ImportJob.Phase.SAVING and not succeeded:
        return SAVING_PERCENT
    share = 100 if job.dry_run else CHECKED_PERCENT
    return percent_done(job.done_rows, job.total_rows, succeeded, share=share)


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
    known: list[KnownPerson] = field(default_factory=list)


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
        known=[KnownPerson(**k) for k in data.get("known_people", [])],
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


# ---------------------------------------------------------------------------
# Starting a job (actions)
# ---------------------------------------------------------------------------


def _forget_old_previews(now: datetime) -> None:
    """Let go of the files of dry runs nobody confirmed within :data:`KEEP_PREVIEW`."""
    ImportJob.objects.filter(
        dry_run=True, status=ImportJob.Status.SUCCEEDED, finished_at__lt=now - KEEP_PREVIEW
    ).exclude(csv="").update(csv="")


def _start(
    user: Actor,
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
    nul_lines = lines_with_nul(text)
    if nul_lines:  # the job keeps the file in a text column, which cannot hold NUL
        raise services.bad_rows(
            [
                RowError(
                    line,
                    _("the row contains the control character U+0000 (NUL); remove it"),
                )
                for line in nul_lines
            ]
        )
    with transaction.atomic():
        stage = locked(stage)
        services.require_import_open(stage, mode)
        now = timezone.now()
        _forget_old_previews(now)
        ImportJob.stalled(now, stage.import_jobs.all())  # lost jobs block the stage no more
        running = stage.import_jobs.filter(status__in=ImportJob.UNFINISHED).order_by("-id").first()
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
            preview = ImportJob.objects.select_for_update(no_key=True).get(pk=preview.pk)
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
        transaction.on_commit(lambda: tasks.run_import.delay(job.pk))
    return job


def start_import(
    user: Actor,
    stage,
    text: str,
    *,
    mode: str = "add",
    dry_run: bool = False,
    rows: int | None = None,
) -> ImportJob:
    """Start importing an entrant CSV as a job: adding its entrants (``mode="add"``) or
    making it the stage's list (``"replace"``); a dry run only checks it and keeps the
    preview. Organizers only, while the stage's registration is open, one unfinished job per
    stage (409). ``rows``: the file's data rows, if the caller counted them already."""
    require_organizer(user, stage.tournament)
    return _start(user, stage, text, mode=mode, dry_run=dry_run, rows=rows)


def confirm_import(user: Actor, preview: ImportJob) -> ImportJob:
    """Start the import a succeeded dry run previewed, from the file it kept (refused once
    it was confirmed, or after :data:`KEEP_PREVIEW`): the same mode, nothing re-sent."""
    stage = preview.stage
    require_organizer(user, stage.tournament)
    return _start(
        user, stage, "", mode=preview.mode, dry_run=False, rows=preview.total_rows, preview=preview
    )
