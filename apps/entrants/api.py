"""REST API of a stage's entrants: the CSV import (with a dry run), the list and the export."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import CsvParser, decode_text, error_responses
from apps.core.permissions import require_organizer
from apps.stages.api import stage_for_action, stage_for_reading

from .models import StageEntry
from .services import export_entrants_csv, import_entrants, preview_import

STAGE_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The stage's id.")


class ImportQuerySerializer(serializers.Serializer):
    dry_run = serializers.BooleanField(
        default=False, help_text="1: check the file and answer with a preview; write nothing."
    )


class CsvJsonSerializer(serializers.Serializer):
    csv = serializers.CharField(trim_whitespace=False, help_text="The entrant CSV, header first.")


class CsvFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The entrant CSV file (UTF-8).")


class ImportPreviewSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many entrants the file adds.")
    nations = serializers.ListField(
        child=serializers.ListField(),
        help_text="[[nation, count], …], the largest nation first.",
    )
    multi_entry_persons = serializers.IntegerField(
        help_text="How many persons hold more than one entry."
    )


class ImportResultSerializer(serializers.Serializer):
    imported = serializers.IntegerField()


def csv_text(request) -> str:
    """The CSV of an import request: a text/csv body, a file field ``file``, or ``{"csv"}``."""
    if isinstance(request.data, str):
        return request.data
    upload = request.FILES.get("file")
    if upload is not None:
        return decode_text(upload.read())
    if "csv" not in request.data:
        raise serializers.ValidationError(
            {
                "csv": _(
                    "Send the CSV as a text/csv body, as a multipart file field 'file', "
                    'or as JSON {"csv": "..."}.'
                )
            }
        )
    body = CsvJsonSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    return body.validated_data["csv"]


class EntrantImportView(APIView):
    """Import entrants from a CSV into the stage and its tournament: all rows or none, every
    bad row listed (organizers; the stage must be open for registration). With
    ``?dry_run=1`` the file is only checked and previewed."""

    parser_classes = [CsvParser, JSONParser, MultiPartParser]

    @extend_schema(
        parameters=[STAGE_ID, ImportQuerySerializer],
        request={
            "text/csv": OpenApiTypes.STR,
            "application/json": CsvJsonSerializer,
            "multipart/form-data": CsvFileSerializer,
        },
        responses={
            201: ImportResultSerializer,
            200: ImportPreviewSerializer,
            **error_responses(400, 403, 404, 409),
        },
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        query = ImportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        if query.validated_data["dry_run"]:
            preview = preview_import(stage, csv_text(request))
            return Response(
                {
                    "count": preview.count,
                    "nations": preview.nations(),
                    "multi_entry_persons": preview.multi_entry_persons(),
                }
            )
        preview = import_entrants(request.user, stage, csv_text(request))
        return Response({"imported": preview.count}, status=status.HTTP_201_CREATED)


class StageEntrantSerializer(serializers.ModelSerializer):
    code = serializers.CharField(source="entrant.code")
    name = serializers.CharField(source="entrant.name")
    nation = serializers.CharField(source="entrant.nation")
    rating = serializers.IntegerField(source="entrant.rating", allow_null=True)
    person = serializers.CharField(source="entrant.person")
    email = serializers.EmailField(source="entrant.email")

    class Meta:
        model = StageEntry
        fields = ["code", "name", "nation", "rating", "person", "email", "source", "reason"]


class StageEntrantFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(method="filter_search", label="Part of a name or a code")
    nation = django_filters.CharFilter(
        field_name="entrant__nation", lookup_expr="iexact", label="Nation code, e.g. ITA"
    )

    class Meta:
        model = StageEntry
        fields = ["search", "nation"]

    def filter_search(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(
            Q(entrant__name__icontains=value) | Q(entrant__code__icontains=value)
        )


@extend_schema(
    parameters=[STAGE_ID],
    responses={200: StageEntrantSerializer(many=True), **error_responses(400, 403, 404)},
)
class StageEntrantListView(generics.ListAPIView):
    """The stage's entrants in code order (organizers)."""

    queryset = StageEntry.objects.none()  # for introspection; get_queryset picks the stage's
    serializer_class = StageEntrantSerializer
    filterset_class = StageEntrantFilter

    def get_queryset(self) -> QuerySet[StageEntry]:
        stage = stage_for_reading(self.request, self.kwargs["pk"])
        require_organizer(self.request.user, stage.tournament)
        return (
            StageEntry.objects.filter(stage=stage)
            .select_related("entrant")
            .order_by("entrant__code")
        )


class StageEntrantCsvView(APIView):
    """The stage's entrants as the entrant CSV (organizers): the file an import reads."""

    def perform_content_negotiation(self, request, force: bool = False):
        # The answer is CSV whatever the Accept header says; errors are rendered as JSON.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="stages_entrants_csv_retrieve",
        parameters=[STAGE_ID],
        responses={(200, "text/csv"): OpenApiTypes.STR, **error_responses(403, 404)},
    )
    def get(self, request, pk: int) -> HttpResponse:
        stage = stage_for_reading(request, pk)
        require_organizer(request.user, stage.tournament)
        response = HttpResponse(export_entrants_csv(stage), content_type="text/csv; charset=utf-8")
        filename = f"{stage.tournament.slug}-stage-{stage.order}-entrants.csv"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
