"""Jobs: work too long for a request, run by Celery workers and followed on a progress bar.

:class:`Job` is what every job has: its status (waiting for a worker, running, done,
failed), its error, who started it, and when it was created, last heard from and finished.
``updated_at`` is the heartbeat: every step of a job's work saves it. A concrete job adds
its input, its progress counters in its own unit (groups drawn, rows checked) and its
outcome: ``stages.DrawJob`` (run by ``office/draw.py``), ``entrants.ImportJob`` (run by
``entrants/importing.py``).

What jobs share is written once, here:

- :meth:`Job.fail` marks an unfinished job failed, under its row lock (a finished job is
  left as it is), and :meth:`Job.failure_hook` makes that the ``on_failure`` of a Celery
  task whose first argument is the job's id;
- :func:`one_unfinished_per` declares "one unfinished job per stage" as a constraint;
- :meth:`Job.stalled` is the sweep: a job not heard from for ``RESUME_AFTER`` is handed back
  to be queued again (and counts as heard from then, so it is queued at most once per
  ``RESUME_AFTER``), and one started longer than ``TIME_LIMIT`` ago is failed with
  ``TIME_LIMIT_MESSAGE``; :meth:`Job.resume_stalled` is the periodic task's body;
- :func:`percent_done`, a progress bar's percent.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, ClassVar, NamedTuple, Self

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .choices import TextChoices


def percent_done(done: int, total: int, succeeded: bool, *, share: int = 100) -> int:
    """A job's progress bar: 100 only once it succeeded, else ``done`` of ``total`` filling
    ``share`` percent of the bar (the rest stands for work after the counted part), at
    most 99."""
    if succeeded:
        return 100
    return min(99, round(share * done / total)) if total else 0


class Stalled(NamedTuple):
    """What a sweep found: the jobs to queue again, and those it stopped (failed)."""

    resume: list[int]
    stopped: list[int]


class Job(models.Model):
    """Abstract: one run of some work by Celery workers (see the module's docstring).

    A concrete job sets :attr:`TIME_LIMIT` and :attr:`TIME_LIMIT_MESSAGE`, and
    :attr:`RESUME_AFTER` if its steps are queued again when they were lost; it declares
    ``Status`` and ``status`` again only to name the running state in its own words (the
    values stay the same). :meth:`failure_changes` and :meth:`record_failure` add what a
    failure of it changes and records besides the status.
    """

    class Status(TextChoices):
        PENDING = "pending", _("Waiting for a worker")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Done")
        FAILED = "failed", _("Failed")

    UNFINISHED: ClassVar[tuple[str, ...]] = (Status.PENDING.value, Status.RUNNING.value)
    FINISHED: ClassVar[tuple[str, ...]] = (Status.SUCCEEDED.value, Status.FAILED.value)
    # A job not heard from for this long lost its task: the sweep hands it back to be queued
    # again (None: its task is never queued again by a sweep).
    RESUME_AFTER: ClassVar[timedelta | None] = None
    # A job started longer ago than this is stopped (failed) with this sentence, which may
    # name the limit as %(minutes)s.
    TIME_LIMIT: ClassVar[timedelta]
    TIME_LIMIT_MESSAGE: ClassVar[str | Promise]

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(
        auto_now=True, help_text="last heard from: every step of the job saves it"
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def finished(self) -> bool:
        return self.status in self.FINISHED

    def past_time_limit(self, now: datetime | None = None) -> bool:
        """Whether the job is unfinished and started longer than :attr:`TIME_LIMIT` ago."""
        now = now or timezone.now()
        return not self.finished and self.created_at < now - self.TIME_LIMIT

    # -- failing -----------------------------------------------------------------------

    @classmethod
    def fail(cls, pk: int, message: str, **changes: Any) -> bool:
        """Mark the job failed with ``message`` (and ``changes``, field by field) unless it
        has finished; True if this call did. Takes the job's row lock for it, so a step
        finishing the job at the same moment either comes first or finds it failed."""
        with transaction.atomic():
            job = cls._default_manager.select_for_update(no_key=True).filter(pk=pk).first()
            if job is None or job.finished:
                return False
            job.mark_failed(message, **changes)
        return True

    def mark_failed(self, message: str, **changes: Any) -> None:
        """Record this job's failure (the caller holds its row lock and saw it unfinished)."""
        changes = {**self.failure_changes(), **changes}
        for name, value in changes.items():
            setattr(self, name, value)
        self.status = self.Status.FAILED
        self.error = message
        self.finished_at = timezone.now()
        self.save(update_fields=["status", "error", "finished_at", "updated_at", *changes])
        self.record_failure(message)

    def failure_changes(self) -> dict[str, Any]:
        """The fields a failure sets besides status, error and time (e.g. a file let go)."""
        return {}

    def record_failure(self, message: str) -> None:
        """Record the failure beyond the job's row (an audit event), in its transaction."""

    @classmethod
    def failure_hook(cls, message: str | Promise) -> Callable[..., None]:
        """An ``on_failure`` for a Celery task whose first argument is the id of one of these
        jobs: once the task has failed for good (its retries spent, an error it does not
        retry, its soft time limit), the job is failed with ``message`` — ``%(error)s`` in it
        is the error — instead of showing "running" until its time limit."""

        def on_failure(task, exc, task_id, args, kwargs, einfo) -> None:
            cls.fail(args[0], str(message) % {"error": exc})

        return on_failure

    # -- the stalled sweep -------------------------------------------------------------

    def stop_if_stalled(self) -> Self:
        """This job, marked failed first if it is past :attr:`TIME_LIMIT` (it was lost): read
        before its progress is shown, so that nobody waits for it for ever."""
        if self.past_time_limit() and type(self).fail(self.pk, self.time_limit_message()):
            self.refresh_from_db()
        return self

    @classmethod
    def time_limit_message(cls) -> str:
        return str(cls.TIME_LIMIT_MESSAGE) % {"minutes": int(cls.TIME_LIMIT.total_seconds() // 60)}

    @classmethod
    def stalled(cls, now: datetime | None = None, jobs: models.QuerySet | None = None) -> Stalled:
        """Sweep the unfinished jobs (of ``jobs``, default all): those started longer than
        :attr:`TIME_LIMIT` ago are failed with :attr:`TIME_LIMIT_MESSAGE`; those not heard
        from for :attr:`RESUME_AFTER` are returned to be queued again, and count as heard
        from now, so that the next sweeps leave them alone for another ``RESUME_AFTER`` (a
        queue that is only slow gets one more task, not one a sweep). Every step of a job is
        idempotent, so a job queued twice does its work once."""
        now = now or timezone.now()
        unfinished = (cls._default_manager.all() if jobs is None else jobs).filter(
            status__in=cls.UNFINISHED
        )
        late = list(
            unfinished.filter(created_at__lt=now - cls.TIME_LIMIT).values_list("pk", flat=True)
        )
        if late:
            message = cls.time_limit_message()
            for pk in late:
                cls.fail(pk, message)
        if cls.RESUME_AFTER is None:
            return Stalled([], late)
        quiet = unfinished.filter(updated_at__lt=now - cls.RESUME_AFTER).exclude(pk__in=late)
        resume = list(quiet.values_list("pk", flat=True))
        cls._default_manager.filter(pk__in=resume, status__in=cls.UNFINISHED).update(updated_at=now)
        return Stalled(resume, late)

    @classmethod
    def resume_stalled(cls, task) -> dict[str, int]:
        """The periodic sweep's body (:meth:`stalled`): queue ``task`` (whose first argument
        is the job's id) again for each job to resume."""
        resume, stopped = cls.stalled()
        for pk in resume:
            task.delay(pk)
        return {"resumed": len(resume), "stopped": len(stopped)}


def one_unfinished_per(field: str, *, name: str) -> models.UniqueConstraint:
    """The constraint "one unfinished job per ``field``" (e.g. per stage), for a concrete
    job's ``Meta.constraints``: a second start while one runs fails in the database even if
    the action's own check were raced."""
    return models.UniqueConstraint(
        fields=[field], condition=models.Q(status__in=list(Job.UNFINISHED)), name=name
    )
