"""API representations of tournaments and stages (shared by every app's API), and what the
API takes to create and change them.

The write serializers check each value (type, bounds, choices) and the settings taken together
(``Tournament.setting_errors``, ``Stage.setting_errors``), naming the field in the API's
terms; the actions (``apps.stages.services``) check again and decide what is frozen.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .models import (
    GAMES_MAX,
    GAMES_MIN,
    GAMES_TOO_FEW,
    GAMES_TOO_MANY,
    GROUP_MAX,
    GROUP_MIN,
    GROUP_TOO_LARGE,
    GROUP_TOO_SMALL,
    NATION_GAMES_TOO_MANY,
    ROUND_DAYS_MAX,
    ROUND_DAYS_TOO_FEW,
    ROUND_DAYS_TOO_MANY,
    SWISS_ROUNDS_TOO_FEW,
    SWISS_ROUNDS_TOO_MANY,
    Stage,
    Tournament,
)
from .models import validate_formula as check_formula
from .services import STAGE_FIELDS, stage_defaults, suggested_kind

GAMES_ERRORS = {"min_value": GAMES_TOO_FEW, "max_value": GAMES_TOO_MANY}


class StageSummarySerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Stage
        fields = ["id", "url", "kind", "order", "format", "status"]

    def get_url(self, stage: Stage) -> str:
        return reverse("api-stage-detail", args=[stage.pk])


def _points(side: str, help_text: str) -> serializers.DecimalField:
    return serializers.DecimalField(
        source=f"points_{side}",
        max_digits=4,
        decimal_places=2,
        coerce_to_string=False,
        min_value=0,
        required=False,
        help_text=help_text,
    )


class PointsSerializer(serializers.Serializer):
    win = _points("win", "Points for a win (default 1); more than 0 and at least a draw's.")
    draw = _points("draw", "Points for a draw (default 0.5); at most a win's, at least a loss's.")
    loss = _points("loss", "Points for a loss (default 0); at most a draw's.")


class TournamentSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    points = PointsSerializer(source="*", read_only=True)
    stages = StageSummarySerializer(
        source="visible_stages",
        many=True,
        read_only=True,
        help_text="The stages you may see: published and closed ones, all of them for organizers.",
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "slug",
            "name",
            "url",
            "games_per_player",
            "points",
            "tiebreak",
            "ranking",
            "description",
            "contact_email",
            "starts_on",
            "ends_on",
            "created_at",
            "stages",
        ]

    def get_url(self, tournament: Tournament) -> str:
        return reverse("api-tournament-detail", args=[tournament.slug])


class StageSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    tournament = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    games_per_player = serializers.IntegerField(
        read_only=True,
        help_text="The games per player in force: the stage's own, else the tournament's.",
    )
    games_per_player_override = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="The stage's own games per player; null: the tournament's apply.",
    )
    formula = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        read_only=True,
        help_text="A formula given by hand, or null for the engine's choice per group.",
    )
    qualify_value = serializers.DecimalField(
        max_digits=7,
        decimal_places=3,
        allow_null=True,
        read_only=True,
        coerce_to_string=False,
        help_text="The qualification rule's value: points, points lost, or a count (a share "
        "or percentage when qualify_relative).",
    )
    entrant_count = serializers.IntegerField(read_only=True)
    group_count = serializers.IntegerField(read_only=True)
    groups_url = serializers.SerializerMethodField()

    class Meta:
        model = Stage
        fields = [
            "id",
            "url",
            "tournament",
            "kind",
            "order",
            "format",
            "status",
            "games_per_player",
            "games_per_player_override",
            "min_group_size",
            "separate_nations",
            "avoid_rematches",
            "double_round_robin",
            "balance_ratings",
            "allowed_nation_games",
            "formula",
            "swiss_rounds",
            "swiss_acceleration",
            "qualify_rule",
            "qualify_value",
            "qualify_relative",
            "play_starts_on",
            "play_ends_on",
            "report_accept_days",
            "swiss_round_days",
            "swiss_at_deadline",
            "seed",
            "entrants_digest",
            "draw_digest",
            "entrant_count",
            "group_count",
            "groups_url",
            "registration_closed_at",
            "drawn_at",
            "published_at",
        ]

    def get_url(self, stage: Stage) -> str:
        return reverse("api-stage-detail", args=[stage.pk])

    def get_groups_url(self, stage: Stage) -> str:
        return f"{reverse('api-group-list')}?stage={stage.pk}"


# ---------------------------------------------------------------------------
# Creating and changing
# ---------------------------------------------------------------------------


def _nest(errors: dict[str, str], names: Mapping[str, tuple[str, ...]]) -> dict:
    """Errors by model field as the API names them (``points_win`` → ``points.win``)."""
    nested: dict = {}
    for field, message in errors.items():
        *parents, last = names.get(field, (field,))
        where = nested
        for parent in parents:
            where = where.setdefault(parent, {})
        where[last] = [message]
    return nested


class TournamentWriteSerializer(serializers.ModelSerializer):
    """A tournament's settings, as sent to create or change it (PATCH: only what changes)."""

    name = serializers.CharField(
        max_length=200, help_text="The tournament's name, e.g. “34th Correspondence Cup”."
    )
    slug = serializers.SlugField(
        max_length=80,
        required=False,
        allow_blank=True,
        help_text="Its address: /t/<slug>/. Left out or empty when creating: made from the "
        "name (with -2, -3… if taken). A slug another tournament has is refused.",
    )
    games_per_player = serializers.IntegerField(
        min_value=GAMES_MIN,
        max_value=GAMES_MAX,
        required=False,
        error_messages=GAMES_ERRORS,
        help_text=f"Games each player plays in a Silli stage (even, {GAMES_MIN}–{GAMES_MAX}; "
        "default 10); a stage may have its own. Frozen once a stage that plays them has closed "
        "its registration.",
    )
    points = PointsSerializer(
        source="*",
        required=False,
        help_text="Points for a win, a draw and a loss (win ≥ draw ≥ loss). Frozen, like the "
        "tie-breaks and the ranking, once a stage is published.",
    )
    tiebreak = serializers.ChoiceField(
        choices=Tournament.TieBreak.choices,
        required=False,
        help_text="The tie-break system: torino (TS, then TS-Cut1), buchholz (BH-C2, BH-C1, "
        "BH) or swiss (BH-C1, BH, SB, wins: the usual Swiss chain); default torino.",
    )
    ranking = serializers.ChoiceField(
        choices=Tournament.Ranking.choices,
        required=False,
        help_text="group: standings by group; unified: one ranking of the whole stage.",
    )
    description = serializers.CharField(
        required=False, allow_blank=True, help_text="A description shown to everyone."
    )
    contact_email = serializers.EmailField(
        required=False,
        allow_blank=True,
        help_text="Where players write with questions; shown to everyone.",
    )
    starts_on = serializers.DateField(
        required=False, allow_null=True, help_text="The first day of the tournament."
    )
    ends_on = serializers.DateField(
        required=False, allow_null=True, help_text="The last day (not before starts_on)."
    )

    API_NAMES = {
        "points_win": ("points", "win"),
        "points_draw": ("points", "draw"),
        "points_loss": ("points", "loss"),
    }

    class Meta:
        model = Tournament
        fields = [
            "name",
            "slug",
            "games_per_player",
            "points",
            "tiebreak",
            "ranking",
            "description",
            "contact_email",
            "starts_on",
            "ends_on",
        ]

    def validate_slug(self, value: str) -> str:
        if self.instance is not None and not value:
            raise serializers.ValidationError(
                _("A tournament needs an address; leave the slug out to keep the current one.")
            )
        return value

    def validate(self, attrs: dict) -> dict:
        candidate = copy.copy(self.instance) if self.instance is not None else Tournament()
        for field, value in attrs.items():
            setattr(candidate, field, value)
        errors = candidate.setting_errors()
        if errors:
            raise serializers.ValidationError(_nest(errors, self.API_NAMES))
        return attrs


@extend_schema_field({"type": "string", "enum": Stage.Kind.values})
class KindField(serializers.ChoiceField):
    """A stage's kind in a list (described inline: the schema's ``KindEnum`` is the kind of a
    stage)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(choices=Stage.Kind.choices, **kwargs)


class TournamentCreateSerializer(TournamentWriteSerializer):
    """A new tournament: its settings and the stages it starts with."""

    stage_kinds = serializers.ListField(
        child=KindField(),
        required=False,
        allow_empty=False,
        max_length=10,
        help_text="The stages it starts with, in order, e.g. "
        '["preliminary", "semifinal", "final"]; default ["preliminary"]. Each gets its '
        "kind's defaults; change them with PATCH /api/stages/{id}/.",
    )

    class Meta(TournamentWriteSerializer.Meta):
        fields = [*TournamentWriteSerializer.Meta.fields, "stage_kinds"]


class StageWriteSerializer(serializers.ModelSerializer):
    """A stage's settings, as sent to add or change it (PATCH: only what changes).

    Settings left out of a new stage take its kind's defaults: preliminary and semifinal keep
    nations apart, a final lets them meet, every stage avoids rematches.
    """

    kind = serializers.ChoiceField(
        choices=Stage.Kind.choices,
        required=False,
        help_text="preliminary, semifinal or final; default: the next in that sequence. "
        "Frozen once the stage is drawn.",
    )
    order = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="Its place in the tournament (1 = first); default: after the last. Stages "
        "from that place on move one place (none of them may be drawn). Frozen once drawn.",
    )
    format = serializers.ChoiceField(
        choices=Stage.Format.choices,
        required=False,
        help_text="silli (closed circle, default), round_robin or swiss (one group paired "
        "round by round; give swiss_rounds). Pairing setting.",
    )
    games_per_player = serializers.IntegerField(
        source="games_per_player_override",
        min_value=GAMES_MIN,
        max_value=GAMES_MAX,
        allow_null=True,
        required=False,
        error_messages=GAMES_ERRORS,
        help_text=f"The stage's own games per player (even, {GAMES_MIN}–{GAMES_MAX}); null: "
        "the tournament's. Silli stages only. Pairing setting.",
    )
    min_group_size = serializers.IntegerField(
        min_value=GROUP_MIN,
        max_value=GROUP_MAX,
        required=False,
        error_messages={"min_value": GROUP_TOO_SMALL, "max_value": GROUP_TOO_LARGE},
        help_text=f"Groups have at least this many players ({GROUP_MIN}–{GROUP_MAX}, default "
        "100). Pairing setting.",
    )
    separate_nations = serializers.BooleanField(
        required=False,
        help_text="Keep players of one nation apart (default: yes, but no in a final). "
        "Pairing setting.",
    )
    avoid_rematches = serializers.BooleanField(
        required=False,
        help_text="Pairs who met in an earlier stage do not meet again (default: yes). "
        "Pairing setting.",
    )
    double_round_robin = serializers.BooleanField(
        required=False,
        help_text="A round robin where every pair meets twice (default: no). Pairing setting.",
    )
    balance_ratings = serializers.BooleanField(
        required=False,
        help_text="Spread the ratings evenly over the groups (default: no). Pairing setting.",
    )
    allowed_nation_games = serializers.IntegerField(
        min_value=0,
        max_value=GAMES_MAX,
        required=False,
        error_messages={"max_value": NATION_GAMES_TOO_MANY},
        help_text="Same-nation games a player may have when a nation cannot be kept apart "
        "(default 0). Pairing setting.",
    )
    swiss_rounds = serializers.IntegerField(
        min_value=1,
        max_value=GAMES_MAX,
        allow_null=True,
        required=False,
        error_messages={"min_value": SWISS_ROUNDS_TOO_FEW, "max_value": SWISS_ROUNDS_TOO_MANY},
        help_text=f"A Swiss stage's number of rounds (1–{GAMES_MAX}, and fewer than its "
        "entrants, checked at the draw); null for other formats. Pairing setting.",
    )
    swiss_acceleration = serializers.ChoiceField(
        choices=Stage.Acceleration.choices,
        required=False,
        help_text="A Swiss stage's accelerated pairings: none (default), baku (FIDE's Baku "
        "method) or general (the top half). Pairing setting.",
    )
    formula = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        required=False,
        max_length=GAMES_MAX // 2,
        help_text="A formula given by hand (distinct positive numbers, one per White–Black "
        "pair of games: games_per_player / 2 of them), or null (or []) for the engine's choice "
        "per group. Silli stages only. Pairing setting.",
    )
    qualify_rule = serializers.ChoiceField(
        choices=Stage.QualifyRule.choices,
        allow_blank=True,
        required=False,
        help_text="How entrants qualify for the next stage; empty for none (a final). "
        "May change until the qualification is confirmed.",
    )
    qualify_value = serializers.DecimalField(
        max_digits=7,
        decimal_places=3,
        allow_null=True,
        required=False,
        coerce_to_string=False,
        help_text="The rule's value: points P (threshold), points lost L (loss_cap) or a count "
        "q (top_*); a share of the games or a percentage when qualify_relative.",
    )
    qualify_relative = serializers.BooleanField(
        required=False,
        help_text="threshold: P is a share of the games; top_*: q is a percentage.",
    )
    play_starts_on = serializers.DateField(
        required=False,
        allow_null=True,
        help_text="The first day of play. May change until the stage is closed.",
    )
    play_ends_on = serializers.DateField(
        required=False,
        allow_null=True,
        help_text="The last day of play (not before play_starts_on). May change until the "
        "stage is closed.",
    )
    report_accept_days = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=90,
        help_text="A result a player reports stands after this many days unless the opponent "
        "confirms or disputes it first (default 7). May change until the stage is closed.",
    )
    swiss_round_days = serializers.IntegerField(
        min_value=1,
        max_value=ROUND_DAYS_MAX,
        allow_null=True,
        required=False,
        error_messages={"min_value": ROUND_DAYS_TOO_FEW, "max_value": ROUND_DAYS_TOO_MANY},
        help_text=f"A Swiss stage's days each round lasts (1–{ROUND_DAYS_MAX}): a round's "
        "deadline is its start plus these days; null: no deadline (and for other formats). "
        "May change until the stage is closed; a change applies from the next round on.",
    )
    swiss_at_deadline = serializers.ChoiceField(
        choices=Stage.AtDeadline.choices,
        required=False,
        help_text="What happens when a Swiss round's deadline passes with games unfinished: "
        "adjudicate (default: they go to adjudication and the next round is paired at once, "
        "each such game counted as a draw for the pairing only) or td (they are left to the "
        "TDs, who are e-mailed; the next round is paired once they have results). Ignored by "
        "other formats. May change until the stage is closed.",
    )

    API_NAMES = {"games_per_player_override": ("games_per_player",)}

    class Meta:
        model = Stage
        # The stage's settings (services.STAGE_FIELDS) by their API names.
        fields = [
            "games_per_player" if name == "games_per_player_override" else name
            for name in STAGE_FIELDS
        ]

    def validate_formula(self, value: list[int] | None) -> list[int] | None:
        if not value:
            return None
        check_formula(value)
        return value

    def validate(self, attrs: dict) -> dict:
        if self.instance is not None:
            candidate = copy.copy(self.instance)
        else:
            tournament = self.context["tournament"]
            kind = attrs.get("kind") or suggested_kind(tournament)
            candidate = Stage(tournament=tournament, kind=kind, **stage_defaults(kind))
        for field, value in attrs.items():
            setattr(candidate, field, value)
        errors = candidate.setting_errors()
        if errors:
            raise serializers.ValidationError(_nest(errors, self.API_NAMES))
        return attrs
