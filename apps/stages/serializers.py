"""API representations of tournaments and stages (shared by every app's API), and what the
API takes to create and change them.

The settings' fields come from the models and their declaration (``settings_catalog``): type,
choices, whether they may be empty, bounds with their refusals, descriptions and API names.
The write serializers check each value (type, bounds, choices) and the settings taken together
(``Tournament.setting_errors``, ``Stage.setting_errors``), naming the field in the API's
terms; the actions (``apps.stages.services``) check again and decide what is frozen.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.api import nullable_schema

from .feasibility import draw_check
from .models import GAMES_MAX, Stage, Tournament
from .services import stage_defaults, suggested_kind
from .settings_catalog import STAGE_SETTINGS, TOURNAMENT_SETTINGS, Catalog, Setting
from .settings_catalog import validate_formula as check_formula


def _options(setting: Setting, *, write: bool) -> dict:
    """A setting's serializer field options: its description (and, to write, its bounds and
    refusals); a decimal as a JSON number."""
    options: dict = {"help_text": setting.api_description()}
    if write:
        options.update(setting.bounds())
    if isinstance(setting.field, models.DecimalField):
        options["coerce_to_string"] = False
    return options


def setting_kwargs(catalog: Catalog, *, write: bool = True, **overrides: dict) -> dict:
    """``extra_kwargs`` of a model serializer of ``catalog``'s settings, each under its API
    name (a nested one is its parent's: :func:`nested_setting_kwargs`), with ``overrides``."""
    kwargs = {}
    for setting in catalog:
        if len(setting.api_path) > 1:
            continue
        options = _options(setting, write=write)
        if setting.api_name != setting.name:
            options["source"] = setting.name
        kwargs[setting.api_name] = {**options, **overrides.get(setting.api_name, {})}
    return kwargs


def nested_setting_kwargs(catalog: Catalog, parent: str) -> dict:
    """``extra_kwargs`` of the settings the API nests under ``parent`` (``points.win``)."""
    return {
        setting.api_path[1]: {"source": setting.name, **_options(setting, write=True)}
        for setting in catalog
        if setting.api_path[:1] == (parent,) and len(setting.api_path) == 2
    }


class StageSummarySerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Stage
        fields = ["id", "url", "kind", "order", "format", "status"]
        extra_kwargs = setting_kwargs(STAGE_SETTINGS, write=False)

    def get_url(self, stage: Stage) -> str:
        return reverse("api-stage-detail", args=[stage.pk])


class PointsSerializer(serializers.ModelSerializer):
    """A tournament's points for a win, a draw and a loss."""

    class Meta:
        model = Tournament
        fields = ["win", "draw", "loss"]
        extra_kwargs = nested_setting_kwargs(TOURNAMENT_SETTINGS, "points")


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
        fields = ["id", "url", *TOURNAMENT_SETTINGS.api_names(), "created_at", "stages"]
        extra_kwargs = setting_kwargs(TOURNAMENT_SETTINGS, write=False)

    def get_url(self, tournament: Tournament) -> str:
        return reverse("api-tournament-detail", args=[tournament.slug])


# A stage's draw check (``apps.stages.feasibility.draw_check``), as the schema describes it.
DRAW_CHECK = nullable_schema(
    {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["ok", "adjusted", "impossible", "note"]},
            "group_sizes": nullable_schema({"type": "array", "items": {"type": "integer"}}),
            "message": nullable_schema({"type": "string"}),
        },
        "required": ["status", "group_sizes", "message"],
    }
)


class StageSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    tournament: serializers.SlugRelatedField[Tournament] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text="The tournament's slug."
    )
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
    draw_check = serializers.SerializerMethodField(
        help_text="Before the draw of a Silli stage: what the draw makes of its entrants so far "
        "(status ok, adjusted: fewer, larger groups than the smallest group asks, or "
        "impossible; note: no entrants yet, the smallest group alone cannot be drawn), the "
        "group sizes and a sentence naming the nearest workable settings; null when there is "
        "nothing to say (drawn, another format)."
    )

    class Meta:
        model = Stage
        fields = [
            "id",
            "url",
            "tournament",
            "status",
            "games_per_player",
            *STAGE_SETTINGS.names(),
            "seed",
            "entrants_digest",
            "draw_digest",
            "entrant_count",
            "group_count",
            "groups_url",
            "draw_check",
            "registration_closed_at",
            "drawn_at",
            "published_at",
        ]
        extra_kwargs = setting_kwargs(STAGE_SETTINGS, write=False)

    def get_url(self, stage: Stage) -> str:
        return reverse("api-stage-detail", args=[stage.pk])

    def get_groups_url(self, stage: Stage) -> str:
        return f"{reverse('api-group-list')}?stage={stage.pk}"

    @extend_schema_field(DRAW_CHECK)
    def get_draw_check(self, stage: Stage) -> dict | None:
        return draw_check(stage, getattr(stage, "entrant_count", None))


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

    points = PointsSerializer(
        source="*",
        required=False,
        help_text="Points for a win, a draw and a loss (win ≥ draw ≥ loss). Frozen, like the "
        "tie-breaks and the ranking, once a stage is published.",
    )

    API_NAMES = TOURNAMENT_SETTINGS.api_paths()

    class Meta:
        model = Tournament
        fields = TOURNAMENT_SETTINGS.api_names()
        extra_kwargs = setting_kwargs(
            TOURNAMENT_SETTINGS,
            # Left out or empty when creating: made from the name. The action refuses a slug
            # another tournament has, in its own words.
            slug={"required": False, "allow_blank": True, "validators": []},
        )

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

    # Typed: a list of numbers (the model stores JSON).
    formula = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        required=False,
        max_length=GAMES_MAX // 2,
        help_text=STAGE_SETTINGS["formula"].api_description(),
    )

    API_NAMES = STAGE_SETTINGS.api_paths()

    class Meta:
        model = Stage
        fields = STAGE_SETTINGS.api_names()
        extra_kwargs = setting_kwargs(STAGE_SETTINGS)

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
