"""Tournaments and their stages, and the draw jobs that fill a stage with groups."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Tournament(models.Model):
    """A Cup: its format and the people who run it."""

    class TieBreak(models.TextChoices):
        TORINO = "torino", _("Torino (TS, then TS-Cut1)")
        BUCHHOLZ = "buchholz", _("Buchholz (BH-C2, BH-C1, BH)")

    class Ranking(models.TextChoices):
        GROUP = "group", _("by group")
        UNIFIED = "unified", _("one unified ranking")

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    games_per_player = models.PositiveSmallIntegerField(
        default=10, validators=[MinValueValidator(2)]
    )
    points_win = models.DecimalField(max_digits=4, decimal_places=2, default=Decimal("1"))
    points_draw = models.DecimalField(max_digits=4, decimal_places=2, default=Decimal("0.5"))
    points_loss = models.DecimalField(max_digits=4, decimal_places=2, default=Decimal("0"))
    tiebreak = models.CharField(max_length=16, choices=TieBreak.choices, default=TieBreak.TORINO)
    ranking = models.CharField(max_length=16, choices=Ranking.choices, default=Ranking.GROUP)
    organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organized_tournaments"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(points_win__gte=models.F("points_draw"))
                & models.Q(points_draw__gte=models.F("points_loss")),
                name="tournament_points_ordered",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.slug])

    @property
    def first_stage(self) -> Stage | None:
        return self.stages.order_by("order").first()


class Stage(models.Model):
    """One stage of a tournament, drawn and played as a set of groups."""

    class Kind(models.TextChoices):
        PRELIMINARY = "preliminary", _("Preliminary")
        SEMIFINAL = "semifinal", _("Semifinal")
        FINAL = "final", _("Final")

    class Format(models.TextChoices):
        SILLI = "silli", _("Silli closed circle")
        ROUND_ROBIN = "round_robin", _("Round robin")

    class QualifyRule(models.TextChoices):
        THRESHOLD = "threshold", _("points threshold")
        LOSS_CAP = "loss_cap", _("cap on points lost")
        TOP_PER_GROUP = "top_per_group", _("top of each group")
        TOP_OVERALL = "top_overall", _("top of the unified ranking")

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("stage status", "Registration open")
        REGISTRATION_CLOSED = (
            "registration_closed",
            pgettext_lazy("stage status", "Registration closed"),
        )
        DRAWN = "drawn", pgettext_lazy("stage status", "Drawn, not published")
        PUBLISHED = "published", pgettext_lazy("stage status", "Published")
        CLOSED = "closed", pgettext_lazy("stage status", "Closed")

    # The only moves a stage's status may make; services check them (see `move_to`).
    TRANSITIONS = {
        Status.DRAFT: {Status.REGISTRATION_CLOSED},
        Status.REGISTRATION_CLOSED: {Status.DRAFT, Status.DRAWN},
        Status.DRAWN: {Status.DRAWN, Status.PUBLISHED},
        Status.PUBLISHED: {Status.CLOSED},
        Status.CLOSED: set(),
    }

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.PRELIMINARY)
    order = models.PositiveSmallIntegerField(default=1)
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.SILLI)
    double_round_robin = models.BooleanField(default=False)
    min_group_size = models.PositiveIntegerField(default=100, validators=[MinValueValidator(2)])
    separate_nations = models.BooleanField(default=True)
    avoid_rematches = models.BooleanField(default=True)
    balance_ratings = models.BooleanField(default=False)
    allowed_nation_games = models.PositiveSmallIntegerField(default=0)
    formula = models.JSONField(null=True, blank=True, help_text=_("A formula given by hand"))
    seed = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.DRAFT)
    entrants_digest = models.CharField(max_length=64, blank=True)
    draw_digest = models.CharField(max_length=64, blank=True)
    registration_closed_at = models.DateTimeField(null=True, blank=True)
    drawn_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    adjudication_requested_at = models.DateTimeField(
        null=True, blank=True, help_text=_("when the open games were sent to adjudication")
    )
    # How entrants qualify for the next stage (STANDINGS.md, "Qualification"); blank: a final.
    qualify_rule = models.CharField(
        max_length=16, choices=QualifyRule.choices, blank=True, verbose_name=_("qualification rule")
    )
    qualify_value = models.DecimalField(
        max_digits=7,
        decimal_places=3,
        null=True,
        blank=True,
        verbose_name=_("qualification value"),
        help_text=_("points P, points lost L, or a count q (a share or percentage if relative)"),
    )
    qualify_relative = models.BooleanField(
        default=False,
        verbose_name=_("relative"),
        help_text=_("threshold: P is a share of the games; top: q is a percentage"),
    )
    lot_seed = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("the seed of the lot at the qualification cut (default: the draw's seed)"),
    )

    class Meta:
        ordering = ["tournament", "order"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "order"], name="stage_order_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} — {self.get_kind_display()}"

    def get_absolute_url(self) -> str:
        return reverse("stage", args=[self.tournament.slug, self.order])

    @property
    def games_per_player(self) -> int:
        return self.tournament.games_per_player

    @property
    def is_public(self) -> bool:
        return self.status in (self.Status.PUBLISHED, self.Status.CLOSED)

    def can_move_to(self, status: str) -> bool:
        return status in self.TRANSITIONS[self.Status(self.status)]


class DrawJob(models.Model):
    """One run of a stage's draw: the division, then one task per group, then the finish."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for a worker")
        RUNNING = "running", _("Drawing")
        SUCCEEDED = "succeeded", _("Done")
        FAILED = "failed", _("Failed")

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="draw_jobs")
    seed = models.CharField(max_length=200)
    draw_settings = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    total_groups = models.PositiveIntegerField(default=0)
    done_groups = models.PositiveIntegerField(
        default=0, help_text="groups drawn so far (each counted once, when its result is stored)"
    )
    error = models.TextField(blank=True)
    digest = models.CharField(max_length=64, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"draw of {self.stage} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)


class DrawJobGroup(models.Model):
    """One group of a draw job: its members from the division, then the engine's result,
    kept until the job's finish writes the tables."""

    job = models.ForeignKey(DrawJob, on_delete=models.CASCADE, related_name="group_results")
    number = models.PositiveIntegerField()
    members = models.JSONField(default=list)
    payload = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "number"], name="draw_job_group_unique"),
        ]

    def __str__(self) -> str:
        return f"group {self.number} of {self.job}"
