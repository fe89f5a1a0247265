"""The office's own records: the format lab's runs (``lab/runs.py``, run by ``lab/tasks.py``)."""

from __future__ import annotations

from datetime import timedelta

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices
from apps.core.jobs import Job, one_unfinished_per
from apps.silli.lab.results import FORM_SD


class LabRun(Job):
    """One run of the format lab on a stage: 2–4 candidate formats, each simulated
    ``tournaments`` times on the stage's entrants as they were when the run started.

    ``tallies`` holds each candidate's counts so far (the lab's :class:`Tally`, as JSON): the
    task adds a chunk of tournaments at a time, so the progress bar moves and a repeated
    task continues where the stored counts end instead of counting twice. ``results`` holds
    each candidate's report once every tournament is played."""

    class Status(TextChoices):
        PENDING = "pending", _("Waiting for a worker")
        RUNNING = "running", _("Simulating")
        SUCCEEDED = "succeeded", _("Done")
        FAILED = "failed", _("Failed")

    # A run's task saves after every chunk (well under a minute). A run not saved for this
    # long has lost its task (a killed worker, a broker away when it started or went on): the
    # sweep (``resume_stalled_lab_runs``, every minute) queues it again, at most once per this
    # time; a run queued twice counts each chunk once (``runs.advance``).
    RESUME_AFTER = timedelta(minutes=2)
    # A run started longer ago than this is stopped (the largest take about 20 minutes).
    TIME_LIMIT = timedelta(minutes=60)
    TIME_LIMIT_MESSAGE = _(
        "The run took longer than %(minutes)s minutes and was stopped; start it again, "
        "perhaps with fewer tournaments."
    )

    stage = models.ForeignKey("stages.Stage", on_delete=models.CASCADE, related_name="lab_runs")
    seed = models.CharField(max_length=200)
    tournaments = models.PositiveIntegerField(help_text="simulated tournaments per candidate")
    candidates = models.JSONField(default=list, help_text="each candidate's settings")
    entrants = models.JSONField(
        default=list,
        help_text="the stage's entrants when the run started: [code, nation, rating, person]",
    )
    unrated = models.PositiveIntegerField(
        default=0, help_text="entrants without a rating, played at the field's lowest rating"
    )
    form_sd = models.FloatField(
        default=FORM_SD,
        help_text="σ of a player's form in a simulated tournament, rating points (runs made "
        "before the form was modelled have 0)",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    done = models.PositiveIntegerField(default=0, help_text="tournaments simulated so far, all")
    tallies = models.JSONField(default=list, blank=True)
    results = models.JSONField(null=True, blank=True, help_text="each candidate's report")

    class Meta(Job.Meta):
        constraints = [one_unfinished_per("stage", name="lab_run_one_unfinished_per_stage")]

    def __str__(self) -> str:
        return f"format lab run of {self.stage} ({self.status})"

    @property
    def total(self) -> int:
        return self.tournaments * len(self.candidates)
