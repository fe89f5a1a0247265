"""Tournaments and their stages, and the draw jobs that fill a stage with groups."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from apps.core.audit import Action, record
from apps.core.choices import TextChoices
from apps.core.jobs import Job, one_unfinished_per

# A reported result stands after this many days unless the opponent answers (the default).
REPORT_ACCEPT_DAYS = 7

# Bounds of the settings an organizer types, each with the reason a value beyond it is refused.
# The model's validators, the API's serializers and the pages' forms all use these.
GAMES_MIN, GAMES_MAX = 2, 60
GROUP_MIN, GROUP_MAX = 2, 1000


def _with_limit(message, limit: int):
    """``message`` (lazy, with ``%(limit)s``) with the limit filled in, still lazy: the same
    text serves Django's validators and DRF's ``error_messages``."""
    return lazy(lambda: str(message) % {"limit": limit}, str)()


GAMES_TOO_FEW = _with_limit(
    _("A player needs at least %(limit)s games: one with White and one with Black."), GAMES_MIN
)
GAMES_TOO_MANY = _with_limit(
    _("More than %(limit)s games per player is beyond what a correspondence stage can play."),
    GAMES_MAX,
)
NATION_GAMES_TOO_MANY = _with_limit(
    _("At most %(limit)s: no player plays more games than that, same-nation ones included."),
    GAMES_MAX,
)
GAMES_ODD = _(
    "A closed circle gives every player as many games with White as with Black, so the number "
    "of games per player must be even (e.g. 8 or 10)."
)
GROUP_TOO_SMALL = _with_limit(
    _("A group needs at least %(limit)s players to play anyone."), GROUP_MIN
)
GROUP_TOO_LARGE = _with_limit(
    _(
        "Groups of more than %(limit)s players are beyond what one group's TD can run; "
        "the draw makes more groups instead."
    ),
    GROUP_MAX,
)


SWISS_ROUNDS_TOO_FEW = _("A Swiss stage needs at least one round.")
SWISS_ROUNDS_TOO_MANY = _with_limit(
    _("More than %(limit)s rounds is beyond what a correspondence stage can play."), GAMES_MAX
)
# How long a Swiss round may last, in days (empty: no deadline).
ROUND_DAYS_MAX = 365
ROUND_DAYS_TOO_FEW = _("A round lasts at least one day.")
ROUND_DAYS_TOO_MANY = _with_limit(
    _("A round of more than %(limit)s days is beyond a correspondence stage's calendar."),
    ROUND_DAYS_MAX,
)


def games_validators() -> list:
    return [
        MinValueValidator(GAMES_MIN, message=GAMES_TOO_FEW),
        MaxValueValidator(GAMES_MAX, message=GAMES_TOO_MANY),
    ]


def validate_formula(value) -> None:
    """A formula given by hand: a list of distinct positive whole numbers (or None)."""
    if value is None:
        return
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError(
            _("Give the formula as a list of numbers, e.g. 1, 4, 10, 17, 32."), code="invalid"
        )
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        raise ValidationError(_("The formula's numbers must be whole numbers."), code="invalid")
    if any(n < 1 for n in value):
        raise ValidationError(
            _("The formula's numbers are distances on the circle: each must be 1 or more."),
            code="min_value",
        )
    if len(set(value)) != len(value):
        raise ValidationError(
            _(
                "Each number of the formula may appear once: a repeated distance gives no new "
                "opponents."
            ),
            code="unique",
        )


def _date_order_errors(start, end, end_field: str) -> dict[str, str]:
    if start and end and end < start:
        return {end_field: str(_("The end comes before the start."))}
    return {}


class Tournament(models.Model):
    """A Cup: its format and the people who run it."""

    class TieBreak(TextChoices):
        TORINO = "torino", _("Torino (TS, then TS-Cut1)")
        BUCHHOLZ = "buchholz", _("Buchholz (BH-C2, BH-C1, BH)")
        SWISS = "swiss", _("Swiss (BH-C1, BH, SB, wins)")

    class Ranking(TextChoices):
        GROUP = "group", _("by group")
        UNIFIED = "unified", _("one unified ranking")

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    games_per_player = models.PositiveSmallIntegerField(
        default=10, validators=games_validators(), verbose_name=_("games per player")
    )
    points_win = models.DecimalField(max_digits=4, decimal_places=2, default=Decimal("1"))
    points_draw = models.DecimalField(max_digits=4, decimal_places=2, default=Decimal("0.5"))
    points_loss = models.DecimalField(max_digits=4, decimal_places=2, default=Decimal("0"))
    tiebreak = models.CharField(max_length=16, choices=TieBreak.choices, default=TieBreak.TORINO)
    ranking = models.CharField(max_length=16, choices=Ranking.choices, default=Ranking.GROUP)
    description = models.TextField(
        blank=True, verbose_name=_("description"), help_text=_("shown to everyone")
    )
    contact_email = models.EmailField(
        blank=True,
        verbose_name=_("contact e-mail"),
        help_text=_("where players write with questions (shown to everyone)"),
    )
    starts_on = models.DateField(null=True, blank=True, verbose_name=_("starts on"))
    ends_on = models.DateField(null=True, blank=True, verbose_name=_("ends on"))
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

    def setting_errors(self) -> dict[str, str]:
        """What is wrong with the settings taken together, by field (empty: nothing).

        The bounds of single fields are their validators; ``clean`` raises these.
        """
        errors: dict[str, str] = {}
        if self.games_per_player and self.games_per_player % 2:
            errors["games_per_player"] = str(GAMES_ODD)
        win, draw, loss = self.points_win, self.points_draw, self.points_loss
        if win is not None and win <= 0:
            errors["points_win"] = str(_("A win must be worth some points."))
        if win is not None and draw is not None and draw > win:
            errors["points_draw"] = str(_("A draw cannot be worth more than a win."))
        if draw is not None and loss is not None and loss > draw:
            errors["points_loss"] = str(_("A loss cannot be worth more than a draw."))
        errors.update(_date_order_errors(self.starts_on, self.ends_on, "ends_on"))
        return errors

    def clean(self) -> None:
        errors = self.setting_errors()
        if errors:
            raise ValidationError(errors)


class Stage(models.Model):
    """One stage of a tournament, drawn and played as a set of groups."""

    class Kind(TextChoices):
        PRELIMINARY = "preliminary", _("Preliminary")
        SEMIFINAL = "semifinal", _("Semifinal")
        FINAL = "final", _("Final")

    class Format(TextChoices):
        SILLI = "silli", _("Silli closed circle")
        ROUND_ROBIN = "round_robin", _("Round robin")
        SWISS = "swiss", _("Swiss (FIDE Dutch system)")

    class Acceleration(TextChoices):
        NONE = "none", _("none")
        BAKU = "baku", _("Baku (FIDE)")
        GENERAL = "general", _("general (half the players)")

    class AtDeadline(TextChoices):
        """What happens when a Swiss round's deadline passes with games unfinished."""

        ADJUDICATE = "adjudicate", _("adjudicate the unfinished games and pair the next round")
        TD = "td", _("leave the unfinished games to the TDs; pair when they have results")

    class QualifyRule(TextChoices):
        THRESHOLD = "threshold", _("points threshold")
        LOSS_CAP = "loss_cap", _("cap on points lost")
        TOP_PER_GROUP = "top_per_group", _("top of each group")
        TOP_OVERALL = "top_overall", _("top of the unified ranking")

    class Status(TextChoices):
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
    # The stage's own games per player; None: the tournament's (``games_per_player`` is the
    # value in force, used everywhere).
    games_per_player_override = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=games_validators(),
        verbose_name=_("games per player"),
        help_text=_("empty: the tournament's"),
    )
    double_round_robin = models.BooleanField(default=False)
    # A Swiss stage's rounds (checked against its entrants at the draw) and acceleration.
    swiss_rounds = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[
            MinValueValidator(1, message=SWISS_ROUNDS_TOO_FEW),
            MaxValueValidator(GAMES_MAX, message=SWISS_ROUNDS_TOO_MANY),
        ],
        verbose_name=_("rounds"),
    )
    swiss_acceleration = models.CharField(
        max_length=8,
        choices=Acceleration.choices,
        default=Acceleration.NONE,
        verbose_name=_("acceleration"),
    )
    # A Swiss round's deadline: the days from its start (None: no deadline), and what happens
    # to the games still unfinished when it passes (apps/office/swiss_deadlines.py).
    swiss_round_days = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[
            MinValueValidator(1, message=ROUND_DAYS_TOO_FEW),
            MaxValueValidator(ROUND_DAYS_MAX, message=ROUND_DAYS_TOO_MANY),
        ],
        verbose_name=_("days each round lasts"),
    )
    swiss_at_deadline = models.CharField(
        max_length=16,
        choices=AtDeadline.choices,
        default=AtDeadline.ADJUDICATE,
        verbose_name=_("at a round's deadline"),
    )
    min_group_size = models.PositiveIntegerField(
        default=100,
        validators=[
            MinValueValidator(GROUP_MIN, message=GROUP_TOO_SMALL),
            MaxValueValidator(GROUP_MAX, message=GROUP_TOO_LARGE),
        ],
    )
    separate_nations = models.BooleanField(default=True)
    avoid_rematches = models.BooleanField(default=True)
    balance_ratings = models.BooleanField(default=False)
    allowed_nation_games = models.PositiveSmallIntegerField(
        default=0, validators=[MaxValueValidator(GAMES_MAX, message=NATION_GAMES_TOO_MANY)]
    )
    formula = models.JSONField(
        null=True, blank=True, help_text=_("A formula given by hand"), validators=[validate_formula]
    )
    play_starts_on = models.DateField(null=True, blank=True, verbose_name=_("play starts on"))
    play_ends_on = models.DateField(null=True, blank=True, verbose_name=_("play ends on"))
    # A result a player reports stands after this many days unless the opponent answers.
    report_accept_days = models.PositiveSmallIntegerField(
        default=REPORT_ACCEPT_DAYS,
        validators=[MinValueValidator(1), MaxValueValidator(90)],
        verbose_name=_("days to answer a reported result"),
    )
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
    # How entrants qualify for the next stage (docs/standings.md §6); blank: a final.
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
        """The games per player in force: the stage's own, else the tournament's."""
        if self.games_per_player_override is not None:
            return self.games_per_player_override
        return self.tournament.games_per_player

    @property
    def is_drawn(self) -> bool:
        """Groups were made (or are final): drawn, published or closed."""
        return self.status in (self.Status.DRAWN, self.Status.PUBLISHED, self.Status.CLOSED)

    def setting_errors(self) -> dict[str, str]:
        """What is wrong with the settings taken together, by field (empty: nothing).

        The bounds of single fields are their validators; ``clean`` raises these.
        """
        errors: dict[str, str] = {}
        silli = self.format == self.Format.SILLI
        swiss = self.format == self.Format.SWISS
        own = self.games_per_player_override
        if own is not None and swiss:
            errors["games_per_player_override"] = str(
                _(
                    "A Swiss stage plays one game a round: its games follow from the rounds; "
                    "leave the games per player empty."
                )
            )
        elif own is not None and not silli:
            errors["games_per_player_override"] = str(
                _(
                    "A round robin's games follow from its group size (everyone plays everyone "
                    "once, or twice if double); leave the games per player empty."
                )
            )
        elif own is not None and own % 2:
            errors["games_per_player_override"] = str(GAMES_ODD)
        if self.formula and not silli:
            errors["formula"] = str(
                _("A formula belongs to a Silli stage; a round robin has none. Leave it empty.")
            )
        elif (
            self.formula
            and isinstance(self.formula, list)
            and "games_per_player_override" not in errors
            and self.tournament_id is not None
        ):
            games = self.games_per_player
            if len(self.formula) * 2 != games:
                errors["formula"] = str(
                    _(
                        "The formula has %(count)s numbers, but %(games)s games per player need "
                        "%(need)s: each number gives one game with White and one with Black."
                    )
                    % {"count": len(self.formula), "games": games, "need": games // 2}
                )
        errors.update(self._swiss_errors())
        errors.update(self._qualification_errors())
        errors.update(_date_order_errors(self.play_starts_on, self.play_ends_on, "play_ends_on"))
        return errors

    def _swiss_errors(self) -> dict[str, str]:
        if self.format == self.Format.SWISS:
            if not self.swiss_rounds:
                return {"swiss_rounds": str(_("Give the number of rounds of the Swiss stage."))}
            return {}
        errors: dict[str, str] = {}
        if self.swiss_rounds:
            errors["swiss_rounds"] = str(
                _("Only a Swiss stage is played in rounds; leave the rounds empty.")
            )
        if self.swiss_round_days:
            errors["swiss_round_days"] = str(
                _("Only a Swiss stage has round deadlines; leave the days each round lasts empty.")
            )
        if self.swiss_acceleration and self.swiss_acceleration != self.Acceleration.NONE:
            errors["swiss_acceleration"] = str(
                _("Only a Swiss stage can be accelerated; choose none.")
            )
        return errors

    @property
    def is_swiss(self) -> bool:
        return self.format == self.Format.SWISS

    def _qualification_errors(self) -> dict[str, str]:
        rule, value = self.qualify_rule, self.qualify_value
        top = rule in (self.QualifyRule.TOP_PER_GROUP, self.QualifyRule.TOP_OVERALL)
        if not rule:
            if value is not None:
                return {"qualify_rule": str(_("Choose the rule this value is for."))}
            return {}
        if value is None:
            return {"qualify_value": str(_("Give the rule's value: points, or a count."))}
        if value < 0:
            return {"qualify_value": str(_("The rule's value cannot be negative."))}
        if rule == self.QualifyRule.LOSS_CAP and self.qualify_relative:
            return {
                "qualify_relative": str(
                    _("A cap on points lost is a number of points; it cannot be relative.")
                )
            }
        if top and not self.qualify_relative and value != int(value):
            return {"qualify_value": str(_("A number of places must be whole."))}
        if top and self.qualify_relative and value > 100:
            return {"qualify_value": str(_("A percentage is at most 100."))}
        return {}

    def clean(self) -> None:
        errors = self.setting_errors()
        if errors:
            raise ValidationError(errors)

    @property
    def is_public(self) -> bool:
        return self.status in (self.Status.PUBLISHED, self.Status.CLOSED)

    def can_move_to(self, status: str) -> bool:
        return status in self.TRANSITIONS[self.Status(self.status)]


class DrawJob(Job):
    """One run of a stage's draw: the division, then one task per batch of groups, then the
    finish (``apps/office/draw.py``); its progress is the groups drawn of the total."""

    class Status(TextChoices):
        PENDING = "pending", _("Waiting for a worker")
        RUNNING = "running", _("Drawing")
        SUCCEEDED = "succeeded", _("Done")
        FAILED = "failed", _("Failed")

    # A job not heard from for this long is resumed (its remaining steps queued again): a
    # lost task (a killed worker, a broker outage) then costs minutes, not the broker's
    # redelivery hour. Every step is idempotent, so resuming a job that was only slow repeats
    # no work that was stored.
    RESUME_AFTER = timedelta(minutes=2)
    # A draw of 100,000 entrants takes about a minute; one that has not finished after this
    # is stopped (nothing written) so it cannot hold the workers for ever.
    TIME_LIMIT = timedelta(minutes=30)
    TIME_LIMIT_MESSAGE = _(
        "The draw took longer than %(minutes)s minutes and was stopped; start it again."
    )

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="draw_jobs")
    seed = models.CharField(max_length=200)
    draw_settings = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    total_groups = models.PositiveIntegerField(default=0)
    done_groups = models.PositiveIntegerField(
        default=0, help_text="groups drawn so far (each counted once, when its result is stored)"
    )
    digest = models.CharField(max_length=64, blank=True)

    class Meta(Job.Meta):
        constraints = [one_unfinished_per("stage", name="draw_job_one_unfinished_per_stage")]

    def __str__(self) -> str:
        return f"draw of {self.stage} ({self.status})"

    def record_failure(self, message: str) -> None:
        record(Action.DRAW_FAILED, self.started_by, stage=self.stage, job=self.pk, error=message)


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
