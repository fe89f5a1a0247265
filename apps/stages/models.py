"""Tournaments and their stages, and the draw jobs that fill a stage with groups."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from apps.core.audit import Action, record
from apps.core.choices import TextChoices
from apps.core.jobs import Job, one_unfinished_per

from .settings_catalog import (
    STAGE_SETTINGS,
    TOURNAMENT_SETTINGS,
    StageSettings,
    TournamentSettings,
)

# The bounds other apps check values against (the format lab's candidates), from the settings'
# declaration.
GAMES_MIN, GAMES_MAX = TOURNAMENT_SETTINGS["games_per_player"].limits
GROUP_MIN, GROUP_MAX = STAGE_SETTINGS["min_group_size"].limits
SWISS_ROUNDS_MIN, SWISS_ROUNDS_MAX = STAGE_SETTINGS["swiss_rounds"].limits

GAMES_ODD = _(
    "A closed circle gives every player as many games with White as with Black, so the number "
    "of games per player must be even (e.g. 8 or 10)."
)


def _date_order_errors(start, end, end_field: str) -> dict[str, str]:
    if start and end and end < start:
        return {end_field: str(_("The end comes before the start."))}
    return {}


class Tournament(TournamentSettings):
    """A Cup: its format and the people who run it.

    Its settings (name, address, games per player, points, tie-breaks…) are the fields of
    ``TournamentSettings``, declared in apps/stages/settings_catalog.py.
    """

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


class Stage(StageSettings):
    """One stage of a tournament, drawn and played as a set of groups.

    Its settings (kind, place, format, group size, qualification rule, play period…) are the
    fields of ``StageSettings``, declared in apps/stages/settings_catalog.py.
    """

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
        low, high = self.rating_min, self.rating_max
        if low is not None and high is not None and low > high:
            errors["rating_max"] = str(_("The highest rating cannot be below the lowest."))
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

    class Failure(TextChoices):
        """Why a failed draw failed, for what its page offers next (never a retry that
        cannot succeed)."""

        OTHER = "", _("Stopped (cancelled, lost or out of time): the same seed may succeed")
        ENGINE = "engine", _("The engine refused: the same seed fails again")
        SETTINGS = "settings", _("The settings cannot be drawn with these entrants")

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
    failure = models.CharField(max_length=16, choices=Failure.choices, default="", blank=True)

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
    payload = models.TextField(  # noqa: DJ001 (NULL: not drawn yet; '' is no group)
        null=True,
        blank=True,
        help_text="the drawn group, its canonical JSON (sorted keys, no spaces)",
    )
    # The drawn group as the rows the finish writes (PostgreSQL; stored with the payload by
    # the group's task, NULL elsewhere): the group's own columns, and its seats and games as
    # PostgreSQL array literals of their columns, entrants by id ('{3,1,2}'; a game's round
    # NULL outside Swiss). The finish unnests them into the tables, so neither the JSON nor
    # the entrants' codes are read there.
    group_row = models.JSONField(null=True, blank=True)
    seat_numbers = models.TextField(null=True, blank=True)  # noqa: DJ001 (NULL: not staged)
    seat_entrants = models.TextField(null=True, blank=True)  # noqa: DJ001
    game_rounds = models.TextField(null=True, blank=True)  # noqa: DJ001
    game_whites = models.TextField(null=True, blank=True)  # noqa: DJ001
    game_blacks = models.TextField(null=True, blank=True)  # noqa: DJ001

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "number"], name="draw_job_group_unique"),
        ]

    def __str__(self) -> str:
        return f"group {self.number} of {self.job}"
