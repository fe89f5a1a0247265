"""REST API of tournaments, stages, their actions (registration, draw, publish) and draw jobs."""

from __future__ import annotations

from collections.abc import Callable

import django_filters
from django.db.models import Count, IntegerField, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses
from apps.core.permissions import require_organizer, visible_stages_filter
from apps.entrants.models import StageEntry
from apps.groups.models import Group

from .draw import job_progress
from .models import DrawJob, Stage, Tournament
from .services import (
    close_registration,
    generate_seed,
    publish_draw,
    reopen_registration,
    start_draw,
)

# ---------------------------------------------------------------------------
# Looking stages up
# ---------------------------------------------------------------------------


def _count_of(model, **match) -> Coalesce:
    """A per-stage row count as a subquery (two joined COUNTs would multiply each other)."""
    rows = model.objects.filter(**match).order_by().values("stage")
    return Coalesce(
        Subquery(rows.annotate(n=Count("pk")).values("n")), 0, output_field=IntegerField()
    )


def stages_visible_to(user) -> QuerySet[Stage]:
    """The stages ``user`` may see, with their entrant and group counts."""
    return (
        Stage.objects.filter(visible_stages_filter(user))
        .select_related("tournament")
        .annotate(
            entrant_count=_count_of(StageEntry, stage=OuterRef("pk")),
            group_count=_count_of(Group, stage=OuterRef("pk")),
        )
    )


def stage_for_reading(request, pk: int) -> Stage:
    """A stage the user may see, or 404 (an unpublished stage does not exist for the public)."""
    stage = stages_visible_to(request.user).filter(pk=pk).first()
    if stage is None:
        raise NotFound(
            _(
                "There is no stage %(id)s, or it is not published yet (its organizers see it "
                "once signed in)."
            )
            % {"id": pk}
        )
    return stage


def stage_for_action(request, pk: int) -> Stage:
    """A stage the user organizes, or 404 if there is none, or 403.

    The action checks the permission again; checking first answers 403 to someone who may not
    act before the body is looked at.
    """
    stage = Stage.objects.select_related("tournament").filter(pk=pk).first()
    if stage is None:
        raise NotFound(_("There is no stage %(id)s.") % {"id": pk})
    require_organizer(request.user, stage.tournament)
    return stage


# ---------------------------------------------------------------------------
# Serializers
# ---------------------------------------------------------------------------


class StageSummarySerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Stage
        fields = ["id", "url", "kind", "order", "format", "status"]

    def get_url(self, stage: Stage) -> str:
        return reverse("api-stage-detail", args=[stage.pk])


class PointsSerializer(serializers.Serializer):
    win = serializers.DecimalField(
        source="points_win", max_digits=4, decimal_places=2, coerce_to_string=False
    )
    draw = serializers.DecimalField(
        source="points_draw", max_digits=4, decimal_places=2, coerce_to_string=False
    )
    loss = serializers.DecimalField(
        source="points_loss", max_digits=4, decimal_places=2, coerce_to_string=False
    )


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
            "slug",
            "name",
            "url",
            "games_per_player",
            "points",
            "tiebreak",
            "ranking",
            "created_at",
            "stages",
        ]

    def get_url(self, tournament: Tournament) -> str:
        return reverse("api-tournament-detail", args=[tournament.slug])


class StageSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    tournament = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    games_per_player = serializers.IntegerField(read_only=True)
    formula = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        read_only=True,
        help_text="A formula given by hand, or null for the engine's choice per group.",
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
            "min_group_size",
            "separate_nations",
            "avoid_rematches",
            "double_round_robin",
            "balance_ratings",
            "allowed_nation_games",
            "formula",
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


class DrawRequestSerializer(serializers.Serializer):
    seed = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="The published random seed, e.g. a lottery result (at most 200 characters).",
    )
    generate_seed = serializers.BooleanField(
        default=False, help_text="Let the server make a seed (it is returned and recorded)."
    )

    def validate(self, data: dict) -> dict:
        if data["generate_seed"] and data.get("seed", "").strip():
            raise serializers.ValidationError(_("Send either a seed or generate_seed, not both."))
        return data


class DrawStartedSerializer(serializers.Serializer):
    job = serializers.IntegerField()
    seed = serializers.CharField()
    progress_url = serializers.CharField()


JobProgressSerializer = inline_serializer(
    "DrawJobProgress",
    {
        "id": serializers.IntegerField(),
        "stage": serializers.IntegerField(),
        "seed": serializers.CharField(),
        "status": serializers.ChoiceField(DrawJob.Status.choices),
        "status_display": serializers.CharField(),
        "total_groups": serializers.IntegerField(),
        "done_groups": serializers.IntegerField(),
        "percent": serializers.IntegerField(),
        "error": serializers.CharField(),
        "digest": serializers.CharField(),
        "finished": serializers.BooleanField(),
    },
)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


class TournamentFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(
        field_name="name", lookup_expr="icontains", label="Part of the tournament's name"
    )

    class Meta:
        model = Tournament
        fields = ["search"]


@extend_schema_view(
    list=extend_schema(responses={200: TournamentSerializer(many=True), **error_responses(400)}),
    retrieve=extend_schema(responses={200: TournamentSerializer, **error_responses(404)}),
)
class TournamentViewSet(viewsets.ReadOnlyModelViewSet):
    """Tournaments (public), each with the stages you may see."""

    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Tournament]:
        stages = Stage.objects.filter(visible_stages_filter(self.request.user)).order_by("order")
        return Tournament.objects.prefetch_related(
            Prefetch("stages", queryset=stages, to_attr="visible_stages")
        )

    def get_object(self) -> Tournament:
        tournament = self.get_queryset().filter(slug=self.kwargs["slug"]).first()
        if tournament is None:
            raise NotFound(_("There is no tournament %(slug)r.") % {"slug": self.kwargs["slug"]})
        return tournament


class StageFilter(django_filters.FilterSet):
    tournament = django_filters.CharFilter(
        field_name="tournament__slug", label="The tournament's slug"
    )
    status = django_filters.ChoiceFilter(choices=Stage.Status.choices)
    kind = django_filters.ChoiceFilter(choices=Stage.Kind.choices)

    class Meta:
        model = Stage
        fields = ["tournament", "status", "kind"]


@extend_schema_view(
    list=extend_schema(responses={200: StageSerializer(many=True), **error_responses(400)}),
    retrieve=extend_schema(responses={200: StageSerializer, **error_responses(404)}),
)
class StageViewSet(viewsets.ReadOnlyModelViewSet):
    """Stages: published and closed ones for everyone, every stage for its organizers."""

    serializer_class = StageSerializer
    filterset_class = StageFilter

    def get_queryset(self) -> QuerySet[Stage]:
        return stages_visible_to(self.request.user).order_by("tournament__slug", "order")

    def get_object(self) -> Stage:
        return stage_for_reading(self.request, self.kwargs["pk"])


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------


@extend_schema(request=None, responses={200: StageSerializer, **error_responses(403, 404, 409)})
class StageTransitionView(APIView):
    """Base of the actions that move a stage to another status and answer with the stage."""

    transition: Callable[..., Stage]

    def post(self, request, pk: int) -> Response:
        stage = self.transition(request.user, stage_for_action(request, pk))
        # Read again for the entrant and group counts the answer shows.
        return Response(StageSerializer(stage_for_reading(request, stage.pk)).data)


class CloseRegistrationView(StageTransitionView):
    """Close registration: freeze the entrant list and record its SHA-256 digest
    (organizers; the stage must be open for registration and have entrants)."""

    transition = staticmethod(close_registration)


class ReopenRegistrationView(StageTransitionView):
    """Reopen registration of a stage whose registration is closed and not yet drawn
    (organizers)."""

    transition = staticmethod(reopen_registration)


class PublishView(StageTransitionView):
    """Publish the drawn groups: they become public and the draw can no longer change
    (organizers)."""

    transition = staticmethod(publish_draw)


class DrawView(APIView):
    """Start (or restart, before publishing) the stage's draw as a background job
    (organizers; registration must be closed). Follow the job at ``progress_url``."""

    @extend_schema(
        request=DrawRequestSerializer,
        responses={202: DrawStartedSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = DrawRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        if params.validated_data["generate_seed"]:
            seed = generate_seed()
        else:
            seed = params.validated_data.get("seed", "")
        job = start_draw(request.user, stage, seed)
        progress_url = reverse("api-draw-job", args=[job.pk])
        return Response(
            {"job": job.pk, "seed": job.seed, "progress_url": progress_url},
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": progress_url},
        )


class DrawJobProgressView(APIView):
    """Progress of a draw job (organizers of its tournament)."""

    @extend_schema(responses={200: JobProgressSerializer, **error_responses(403, 404)})
    def get(self, request, pk: int) -> Response:
        job = DrawJob.objects.select_related("stage__tournament").filter(pk=pk).first()
        if job is None:
            raise NotFound(_("There is no draw job %(id)s.") % {"id": pk})
        require_organizer(request.user, job.stage.tournament)
        return Response(job_progress(job))
