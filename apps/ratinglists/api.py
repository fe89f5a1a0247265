"""REST API of rating lists, rating reports and title-norm figures.

Rating lists (staff and organizers): ``GET/POST /api/rating-lists/`` (the import: a CSV as a
``text/csv`` body, a multipart ``file`` or JSON ``{"csv"}``, with ``name``, ``list_date``,
``source`` and ``dry_run`` as fields or in the query string; a big file answers 202 and is
followed at ``/api/rating-list-jobs/{id}/``), ``GET /api/rating-lists/{id}/``. A stage's
list: ``GET/POST /api/stages/{id}/rating-list/``. Reports and norms, readable by whoever
may see the stage: ``GET /api/groups/{id}/rating-report/``,
``GET /api/stages/{id}/rating-report/``, ``GET /api/groups/{id}/norms/?level=IM``.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import (
    CsvParser,
    JsonParser,
    error_responses,
    request_csv_text,
)
from apps.groups.lookups import group_for_reading
from apps.ratings.norms import NORM_LEVELS, UNOFFICIAL
from apps.stages.lookups import stage_for_action, stage_for_reading

from . import display, reports, services
from .models import RatingList, RatingListImportJob

ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The object's id.")


class RatingListImportOptionsSerializer(serializers.Serializer):
    name = serializers.CharField(help_text='The list\'s name, e.g. "ICCF list 2026/4".')
    list_date = serializers.DateField(help_text="The date the list is valid from.")
    # A field named like Field.source (DRF takes declared fields off the class; the stubs do
    # not know it).
    source = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, default="", help_text="Where the list came from."
    )
    dry_run = serializers.BooleanField(
        default=False, help_text="true: check the file and answer with a preview; write nothing."
    )


class RatingListCsvJsonSerializer(serializers.Serializer):
    csv = serializers.CharField(
        trim_whitespace=False,
        help_text="The list: header id,name,federation,rating,games,title, then a row each.",
    )


class RatingListCsvFileSerializer(RatingListImportOptionsSerializer):
    file = serializers.FileField(help_text="The rating list CSV (UTF-8).")


class RatingListSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    name = serializers.CharField()
    list_date = serializers.DateField()
    source = serializers.CharField()  # type: ignore[assignment]  # as above: a field's name
    entries = serializers.IntegerField(help_text="The list's rows.")
    created_at = serializers.DateTimeField()


class RatingListPreviewSerializer(serializers.Serializer):
    rows = serializers.IntegerField()
    rated = serializers.IntegerField()
    unrated = serializers.IntegerField()
    federations = serializers.ListField(
        child=serializers.ListField(), help_text="[code, count] pairs, most first."
    )
    titles = serializers.ListField(child=serializers.ListField(), help_text="[title, count].")


class RatingListImportedSerializer(serializers.Serializer):
    rating_list = RatingListSerializer(allow_null=True, help_text="null for a dry run.")
    preview = RatingListPreviewSerializer()


class RatingListJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    name = serializers.CharField()
    list_date = serializers.DateField()
    dry_run = serializers.BooleanField()
    status = serializers.CharField(help_text="pending, running, succeeded or failed.")
    status_display = serializers.CharField()
    phase = serializers.CharField(help_text="checking, saving, or empty before it ran.")
    total_rows = serializers.IntegerField()
    done_rows = serializers.IntegerField(help_text="Rows checked so far.")
    percent = serializers.IntegerField()
    error = serializers.CharField()
    details = serializers.ListField(
        child=serializers.DictField(), help_text="Every bad row as {line, message}."
    )
    result = serializers.DictField(
        allow_null=True, help_text="The preview (and rating_list: its id, once written)."
    )
    rating_list = serializers.IntegerField(allow_null=True)
    finished = serializers.BooleanField()


def import_options(request) -> dict:
    options = dict(request.query_params.items())
    if isinstance(request.data, Mapping):
        options.update(
            (k, request.data[k])
            for k in ("name", "list_date", "source", "dry_run")
            if k in request.data
        )
    checked = RatingListImportOptionsSerializer(data=options)
    checked.is_valid(raise_exception=True)
    return checked.validated_data


class RatingListsView(APIView):
    """The rating lists (newest first), and importing one: all rows or none, every bad row
    listed (400 ``bad_rows``, details ``{line, message}``); a list of the same name and date
    exists: 409. A file of more rows than the server imports at once (5000 unless
    configured) is checked and written by a background job: 202 with the job (``url``, also
    ``Location``). Staff and organizers."""

    parser_classes = [CsvParser, JsonParser, MultiPartParser]

    @extend_schema(responses={200: RatingListSerializer(many=True), **error_responses(403)})
    def get(self, request) -> Response:
        services.require_rating_list_manager(request.user)
        return Response([display.list_json(r) for r in RatingList.objects.all()])

    @extend_schema(
        parameters=[RatingListImportOptionsSerializer],
        request={
            "text/csv": OpenApiTypes.STR,
            "application/json": RatingListCsvJsonSerializer,
            "multipart/form-data": RatingListCsvFileSerializer,
        },
        responses={
            201: RatingListImportedSerializer,
            200: RatingListImportedSerializer,
            202: RatingListJobSerializer,
            **error_responses(400, 403, 409),
        },
    )
    def post(self, request) -> Response:
        services.require_rating_list_manager(request.user)
        options = import_options(request)
        text = request_csv_text(request, RatingListCsvJsonSerializer)
        outcome = services.import_or_start(request.user, text=text, **options)
        if isinstance(outcome, RatingListImportJob):
            outcome.refresh_from_db()  # where tasks run in this process, it has finished
            progress = display.job_progress(outcome)
            return Response(
                progress, status=status.HTTP_202_ACCEPTED, headers={"Location": progress["url"]}
            )
        listed = outcome.rating_list
        return Response(
            {
                "rating_list": None if listed is None else display.list_json(listed),
                "preview": outcome.checked.preview(),
            },
            status=status.HTTP_200_OK if listed is None else status.HTTP_201_CREATED,
        )


class RatingListView(APIView):
    """One rating list (staff and organizers)."""

    @extend_schema(
        parameters=[ID], responses={200: RatingListSerializer, **error_responses(403, 404)}
    )
    def get(self, request, pk: int) -> Response:
        services.require_rating_list_manager(request.user)
        rating_list = RatingList.objects.filter(pk=pk).first()
        if rating_list is None:
            raise NotFound(_("There is no rating list %(id)s.") % {"id": pk})
        return Response(display.list_json(rating_list))


class RatingListJobView(APIView):
    """A rating-list import job: its progress, then the preview, the list written, or every
    bad row (staff and organizers)."""

    @extend_schema(
        parameters=[ID], responses={200: RatingListJobSerializer, **error_responses(403, 404)}
    )
    def get(self, request, pk: int) -> Response:
        services.require_rating_list_manager(request.user)
        job = RatingListImportJob.objects.filter(pk=pk).first()
        if job is None:
            raise NotFound(_("There is no rating-list import job %(id)s.") % {"id": pk})
        return Response(display.job_progress(job.stop_if_stalled()))


class StageRatingListSerializer(serializers.Serializer):
    rating_list = RatingListSerializer(allow_null=True, help_text="null: the stage used none.")
    text = serializers.CharField(
        help_text='"Ratings from ICCF list 2026/4 (2026-10-01)"; empty when none.'
    )
    applied_at = serializers.DateTimeField(allow_null=True)
    matched = serializers.IntegerField(help_text="Entrants found on the list.")
    updated = serializers.IntegerField(help_text="Entrants whose rating changed.")
    missing = serializers.IntegerField(help_text="Entrants not on the list (rating kept).")


class ApplyRatingListSerializer(serializers.Serializer):
    rating_list = serializers.IntegerField(help_text="The rating list's id.")


class StageRatingListView(APIView):
    """The rating list a stage's entrants took their ratings from (null: none), and taking
    them from one (organizers, while registration is open: 409 otherwise). Each entrant
    gets the rating of their person (``person`` is the list's ID); entrants the list does
    not name keep theirs."""

    @extend_schema(
        parameters=[ID],
        responses={200: StageRatingListSerializer, **error_responses(404)},
    )
    def get(self, request, pk: int) -> Response:
        stage = stage_for_reading(request, pk)
        return Response(display.used_json(display.stage_list_used(stage)))

    @extend_schema(
        parameters=[ID],
        request=ApplyRatingListSerializer,
        responses={200: StageRatingListSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        body = ApplyRatingListSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        rating_list = RatingList.objects.filter(pk=body.validated_data["rating_list"]).first()
        if rating_list is None:
            raise serializers.ValidationError(
                {
                    "rating_list": _("There is no rating list %(id)s.")
                    % {"id": body.validated_data["rating_list"]}
                }
            )
        used = services.apply_rating_list(request.user, stage, rating_list)
        return Response(display.used_json(used))


class RatingReportRowSerializer(serializers.Serializer):
    group = serializers.IntegerField(help_text="The group's id.")
    group_number = serializers.IntegerField()
    seat = serializers.IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    person = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True, help_text="Before the event; null: unrated.")
    rated_games_before = serializers.IntegerField(help_text="For K (from the stage's list).")
    games = serializers.IntegerField(help_text="Rated games in the event.")
    score = serializers.FloatField(help_text="The score in them.")
    expected = serializers.FloatField(allow_null=True, help_text="ΣE, to two decimals.")
    k = serializers.IntegerField(allow_null=True)
    change = serializers.FloatField(allow_null=True, help_text="K × (score − ΣE), one decimal.")
    new_rating = serializers.FloatField(allow_null=True)
    provisional = serializers.BooleanField(help_text="true for an unrated player.")


class RatingReportSerializer(serializers.Serializer):
    system = serializers.CharField(help_text='"FIDE".')
    rows = RatingReportRowSerializer(many=True)


def _report(rows: list[reports.ReportRow]) -> dict:
    return {"system": "FIDE", "rows": [reports.report_row_json(r) for r in rows]}


class GroupRatingReportView(APIView):
    """A group's rating report by FIDE's rules (docs/ratings.md)."""

    @extend_schema(parameters=[ID], responses={200: RatingReportSerializer, **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        group = group_for_reading(request, pk)
        return Response(_report(reports.group_rating_report(group)))


class StageRatingReportView(APIView):
    """A stage's rating report: each group's, group after group."""

    @extend_schema(parameters=[ID], responses={200: RatingReportSerializer, **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        stage = stage_for_reading(request, pk)
        return Response(_report(reports.stage_rating_report(stage)))


class NormFigureSerializer(serializers.Serializer):
    level = serializers.CharField()
    level_rating = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Rated games.")
    score = serializers.FloatField()
    expected = serializers.FloatField(help_text="The unrounded sum, to four decimals.")
    requirement = serializers.FloatField(help_text="Rounded up to the next half point.")
    norm = serializers.BooleanField(help_text="At least 8 rated games and the requirement.")
    text = serializers.CharField(help_text='"IM norm: needs 6½, has 7 ✓".')


class NormFiguresRowSerializer(serializers.Serializer):
    group = serializers.IntegerField()
    group_number = serializers.IntegerField()
    seat = serializers.IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    person = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)
    norms = NormFigureSerializer(many=True)


class NormFiguresSerializer(serializers.Serializer):
    note = serializers.CharField(help_text=f'"{UNOFFICIAL}".')
    levels = serializers.ListField(child=serializers.CharField())
    rows = NormFiguresRowSerializer(many=True)


class GroupNormsView(APIView):
    """A group's title-norm figures by the individual method, at one level
    (``?level=IM``) or every level (GM 2600, SIM 2500, IM 2450, CCM 2300, CCE 2150).
    Unofficial unless the event is a registered title tournament."""

    @extend_schema(
        parameters=[
            ID,
            OpenApiParameter(
                "level",
                str,
                enum=list(NORM_LEVELS),
                description="One level; every level when left out.",
            ),
        ],
        responses={200: NormFiguresSerializer, **error_responses(400, 404)},
    )
    def get(self, request, pk: int) -> Response:
        group = group_for_reading(request, pk)
        level = request.query_params.get("level")
        if level is not None and level.upper() not in NORM_LEVELS:
            raise serializers.ValidationError(
                {
                    "level": _("%(level)s is no norm level; the levels are %(levels)s.")
                    % {"level": level, "levels": ", ".join(NORM_LEVELS)}
                }
            )
        codes = None if level is None else [level.upper()]
        rows = reports.norm_figures(group, codes)
        return Response(
            {
                "note": UNOFFICIAL,
                "levels": codes or list(NORM_LEVELS),
                "rows": [reports.norm_row_json(r) for r in rows],
            }
        )
