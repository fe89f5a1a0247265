"""Results imports too big for one request, run as a Celery job (:class:`ResultImportJob`).

A file of more than ``RESULT_IMPORT_JOB_CHARS`` characters (a setting, default 200,000:
a couple of thousand PGN games) is not imported in the request: :func:`start_import` stores
it on a new job and queues the task (``tasks.run_result_import``, which runs
:func:`run_import` in the worker), and the caller answers at once with the job's progress
(:func:`job_progress`) and follows it — the page at its address, the API with ``GET
/api/results-import-jobs/{id}/``. A smaller file is imported in the request as before
(``imports.import_results``); both check and apply the file with the same code.

One import at a time per group and per stage: a job into a group, or into the whole stage,
refuses a second one that overlaps it while it waits or runs (409; the constraints of
:class:`ResultImportJob` hold it in the database too), and so does an import in a request.

:func:`run_import`:

1. claims the job (pending or running → running; a finished job is left alone, so a task
   delivered twice, or queued again by the sweep, does nothing the second time);
2. reads the file (``imports.read_lines``), storing the line reached (told every
   ``imports.PROGRESS_EVERY`` games) at most every :data:`PROGRESS_SECONDS` in committed
   writes (each one a heartbeat), so a progress bar moves — reading (python-chess
   checking every move) is the slow part;
3. checks every line against the games and, unless a dry run, applies them
   (``imports.apply_lines``: the groups and games locked), in one transaction together
   with the job's outcome — or the job fails with every bad line and nothing written.

Nothing is written before that one transaction, so a job whose worker was killed is simply
run again from its stored file (the broker hands the task back: ``acks_late``; the sweep
``resume_stalled_result_imports`` queues a job not heard from for
``ResultImportJob.RESUME_AFTER``): the results are applied once, and a file applied already
leaves every game unchanged. A dry run that succeeded keeps its file for
:data:`KEEP_PREVIEW`, so that confirming its preview (:func:`confirm_import`) imports the
very file that was checked.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.jobs import percent_done
from apps.core.permissions import Actor
from apps.groups.models import Group
from apps.stages.models import Stage
from apps.stages.services import locked

from . import imports, tasks
from .models import ResultImportJob

# Files of more characters than this are imported by a job (the setting
# RESULT_IMPORT_JOB_CHARS): about 2,000 PGN games, a few seconds in a request.
DEFAULT_JOB_CHARS = 200_000
# How long a succeeded dry run keeps its file for the confirmation.
KEEP_PREVIEW = timedelta(days=1)
# The progress bar: reading fills it up to CHECKED_PERCENT for an import (then it shows
# SAVING_PERCENT while everything is checked and written), all the way for a dry run.
CHECKED_PERCENT = 70
SAVING_PERCENT = 85
# Reading stores its progress (a heartbeat) at most this often.
PROGRESS_SECONDS = 1.0
# How many of the changes a preview keeps to list (it counts them all).
PREVIEW_ROWS = imports.PREVIEW_ROWS


def job_chars() -> int:
    """The most characters a results file may have to be imported in the request."""
    return int(getattr(settings, "RESULT_IMPORT_JOB_CHARS", DEFAULT_JOB_CHARS))


def runs_as_job(text: str) -> bool:
    """Whether importing ``text`` runs as a job (see :func:`job_chars`)."""
    return len(text) > job_chars()


# ---------------------------------------------------------------------------
# What a job shows
# ---------------------------------------------------------------------------


def percent(job: ResultImportJob) -> int:
    """How far the job is, for a progress bar (100 only once it succeeded)."""
    succeeded = job.status == ResultImportJob.Status.SUCCEEDED
    if job.phase == ResultImportJob.Phase.SAVING and not succeeded:
        return SAVING_PERCENT
    share = 100 if job.dry_run else CHECKED_PERCENT
    return percent_done(job.done_lines, job.total_lines, succeeded, share=share)


def status_display(job: ResultImportJob) -> str:
    """The job's status in words; a running job says what it does (reading, importing)."""
    if job.status == ResultImportJob.Status.RUNNING and job.phase:
        return str(ResultImportJob.Phase(job.phase).label)
    return str(ResultImportJob.Status(job.status).label)


def api_url(job: ResultImportJob) -> str:
    return reverse("api-results-import-job", args=[job.pk])


def page_url(job: ResultImportJob) -> str:
    """The job's page: under the group's results for a group's import, else the stage's."""
    stage = job.stage
    if job.group_id is not None:
        group = job.group
        assert group is not None
        args = [stage.tournament.slug, stage.order, group.number, job.pk]
        return reverse("group-results-import-job", args=args)
    return reverse("stage-results-import-job", args=[stage.tournament.slug, stage.order, job.pk])


def job_progress(job: ResultImportJob) -> dict[str, Any]:
    """What a progress bar and a client need: status, lines read of total, the outcome
    (``result``: what was imported, or the preview) or the error with every bad line."""
    return {
        "id": job.pk,
        "stage": job.stage_id,
        "group": job.group_id,
        "format": job.file_format,
        "dry_run": job.dry_run,
        "status": job.status,
        "status_display": status_display(job),
        "phase": job.phase,
        "total_lines": job.total_lines,
        "done_lines": job.done_lines,
        "games": job.games,
        "percent": percent(job),
        "error": job.error,
        "details": job.details,
        "result": job.result,
        "finished": job.finished,
    }


def report_data(report: imports.ImportReport) -> dict[str, Any]:
    """A report as a job keeps it: the API's import answer (``format``, ``dry_run``,
    ``applied``, ``results``, ``unchanged``, ``errors``), ``scores_only``, and the first
    :data:`PREVIEW_ROWS` changes for the page."""
    return {
        "format": report.file_format,
        "dry_run": report.dry_run,
        "applied": report.applied,
        "results": report.results,
        "scores_only": report.scores_only,
        "unchanged": report.unchanged,
        "errors": [],
        "changes": [
            {
                "line": c.line,
                "group_number": c.group_number,
                "number": c.number,
                "white": c.white,
                "black": c.black,
                "old": c.old,
                "new": c.new,
                "result_set": c.result_set,
                "finished_on": c.finished_on.isoformat() if c.finished_on else None,
                "scored": c.scored,
            }
            for c in report.changes[:PREVIEW_ROWS]
        ],
    }


def confirmable(job: ResultImportJob, now: datetime | None = None) -> bool:
    """Whether the job is a dry run whose import can still be started from its file."""
    now = now or timezone.now()
    return (
        job.dry_run
        and job.status == ResultImportJob.Status.SUCCEEDED
        and bool(job.text)
        and bool(job.result and job.result.get("applied"))
        and job.finished_at is not None
        and job.finished_at > now - KEEP_PREVIEW
    )


# ---------------------------------------------------------------------------
# Starting a job (actions)
# ---------------------------------------------------------------------------


def _forget_old_previews(now: datetime) -> None:
    """Let go of the files of dry runs nobody confirmed within :data:`KEEP_PREVIEW`."""
    ResultImportJob.objects.filter(
        dry_run=True, status=ResultImportJob.Status.SUCCEEDED, finished_at__lt=now - KEEP_PREVIEW
    ).exclude(text="").update(text="")


def _stop_late(stage: Stage, now: datetime) -> None:
    """Fail the stage's unfinished jobs past ``ResultImportJob.TIME_LIMIT``: lost, they block
    its imports no more. (Those only quiet are the sweep's to queue again.)"""
    late = stage.result_import_jobs.filter(
        status__in=ResultImportJob.UNFINISHED,
        created_at__lt=now - ResultImportJob.TIME_LIMIT,
    )
    for pk in late.values_list("pk", flat=True):
        ResultImportJob.fail(pk, ResultImportJob.time_limit_message())


def _start(
    user: Actor,
    stage: Stage,
    group: Group | None,
    text: str,
    file_format: str,
    *,
    dry_run: bool,
    preview: ResultImportJob | None = None,
) -> ResultImportJob:
    """Create and queue a job (the caller checked the permission and the format);
    ``preview``: the dry run whose file this import takes, which lets go of it."""
    with transaction.atomic():
        # The stage's row serializes the starts of its imports (the check below).
        stage = locked(stage)
        now = timezone.now()
        _forget_old_previews(now)
        _stop_late(stage, now)
        imports.refuse_while_job_runs(stage, group)
        if preview is not None:
            preview = ResultImportJob.objects.select_for_update(no_key=True).get(pk=preview.pk)
            if (
                preview.stage_id != stage.pk
                or preview.group_id != (group.pk if group else None)
                or not confirmable(preview, now)
            ):
                raise ActionError(
                    ErrorCode.WRONG_STATUS,
                    _(
                        "This preview can no longer be confirmed: it was confirmed already, "
                        "or it is older than a day and its file is gone. Upload the file "
                        "again."
                    ),
                )
            text, file_format = preview.text, preview.file_format
            preview.text = ""
            preview.save(update_fields=["text"])
        job = ResultImportJob.objects.create(
            stage=stage,
            group=group,
            file_format=file_format,
            dry_run=dry_run,
            text=text,
            total_lines=text.count("\n") + (0 if text.endswith("\n") else 1),
            preview=preview,
            started_by=user if user.is_authenticated else None,
        )
        if not dry_run:
            record(
                Action.RESULTS_IMPORT_STARTED,
                user,
                stage=stage,
                group=group,
                job=job.pk,
                format=file_format,
                lines=job.total_lines,
                preview=None if preview is None else preview.pk,
            )
        transaction.on_commit(lambda: tasks.run_result_import.delay(job.pk))
    return job


def start_import(
    user: Actor,
    *,
    text: str,
    file_format: str | None = None,
    group: Group | None = None,
    stage: Stage | None = None,
    dry_run: bool = False,
) -> ResultImportJob:
    """Start importing a results file as a job, into ``group`` (its TD, organizers) or the
    whole ``stage`` (organizers); a dry run only checks it and keeps the preview. Refused
    as an import in a request is (403, 409 while the stage is not in play, 400 for an
    unknown format or NUL characters, each line with one listed) and while an import into
    the group or the stage waits or runs (409)."""
    stage = imports.import_scope(user, group=group, stage=stage)
    file_format = imports.checked_format(text, file_format)
    imports.refuse_nul(text)  # the job keeps the file in a text column, which cannot hold NUL
    return _start(user, stage, group, text, file_format, dry_run=dry_run)


def confirm_import(user: Actor, preview: ResultImportJob) -> ResultImportJob:
    """Start the import a succeeded dry run previewed, from the file it kept (refused once
    it was confirmed, or after :data:`KEEP_PREVIEW`)."""
    stage = imports.import_scope(user, group=preview.group, stage=preview.stage)
    return _start(
        user, stage, preview.group, "", preview.file_format, dry_run=False, preview=preview
    )


# ---------------------------------------------------------------------------
# Running a job (the task's body)
# ---------------------------------------------------------------------------


class _Stopped(Exception):
    """The job finished while it was being read (failed: past its time limit)."""


def _claim(job_id: int) -> ResultImportJob | None:
    """Lock the job and mark it running (reading); None if it has finished already. A job
    still marked running (its worker was lost) is claimed again: it starts over."""
    with transaction.atomic():
        job = (
            ResultImportJob.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage", "group", "started_by")
            .filter(pk=job_id)
            .first()
        )
        if job is None or job.finished:
            return None
        job.status = ResultImportJob.Status.RUNNING
        job.phase = ResultImportJob.Phase.CHECKING
        job.done_lines = job.games = 0
        job.save(update_fields=["status", "phase", "done_lines", "games", "updated_at"])
    return job


def _count(job_id: int, **values: Any) -> None:
    """Store the job's progress (a committed write, and a heartbeat); stop if it finished
    meanwhile."""
    running = ResultImportJob.objects.filter(pk=job_id, status=ResultImportJob.Status.RUNNING)
    if not running.update(**values, updated_at=timezone.now()):
        raise _Stopped(job_id)


def _progress(job_id: int) -> imports.Progress:
    """What reading tells: stored (:func:`_count`) the first time and then at most every
    :data:`PROGRESS_SECONDS` — a committed write each, which for every thousand lines of a
    file of 500,000 cost seconds."""
    stored_at: float | None = None

    def progress(line: int, games: int) -> None:
        nonlocal stored_at
        now = time.monotonic()
        if stored_at is None or now - stored_at >= PROGRESS_SECONDS:
            _count(job_id, done_lines=line, games=games)
            stored_at = now

    return progress


def run_import(job_id: int) -> str:
    """Run the job: read its file counting the lines, then check it and (unless a dry run)
    apply it in one transaction with the job's outcome. Returns the job's status, or
    ``finished`` when there was nothing (more) to do."""
    job = _claim(job_id)
    if job is None:
        return "finished"
    text, file_format, total_lines = job.text, job.file_format, job.total_lines
    del job  # the lines read are all that is kept of the file (it may be 20 MB)
    try:
        lines = imports.read_lines(text, file_format, _progress(job_id))
        del text
        _count(
            job_id,
            phase=ResultImportJob.Phase.SAVING,
            done_lines=total_lines,
            games=len(lines),
        )
    except ActionError as error:
        ResultImportJob.fail(job_id, error.message, details=error.details or [])
        return ResultImportJob.Status.FAILED
    except _Stopped:
        return "finished"
    return _finish(job_id, lines)


def _finish(job_id: int, lines: imports.Lines) -> str:
    """Check (and apply) the lines read, and record the outcome on the job, in one
    transaction: the job's row first (outside the lock order: no request waits for it), so
    a second run of the job waits here and then finds it finished."""
    with transaction.atomic():
        job = (
            ResultImportJob.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage__tournament", "group", "started_by")
            .defer("text")  # read already (it may be 20 MB)
            .get(pk=job_id)
        )
        if job.finished:
            return "finished"
        try:
            report = imports.apply_lines(
                job.started_by,
                job.stage,
                job.group,
                lines,
                job.file_format,
                dry_run=job.dry_run,
                job=job.pk,
            )
        except ActionError as error:
            job.mark_failed(error.message, details=error.details or [])
            return job.status
        job.result = report_data(report)
        job.status = ResultImportJob.Status.SUCCEEDED
        job.finished_at = timezone.now()
        fields = ["result", "status", "finished_at", "updated_at"]
        if not job.dry_run or not report.applied:
            job.text = ""  # a dry run with something to import keeps its file to confirm
            fields.append("text")
        job.save(update_fields=fields)
    return job.status
