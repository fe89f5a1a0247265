"""REST API of a stage's entrants: the CSV import (with a dry run; adding to the list or
replacing it; a big file as a background job, followed at its own address), the list,
adding, changing and removing one entrant, and the export."""

from __future__ import annotations

from collections.abc import Mapping

import django_filters
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import CsvParser, JsonParser, error_responses, request_csv_text
from apps.core.permissions import require_organizer
from apps.stages.lookups import stage_for_action, stage_for_reading

from . import importing, jobs, services
from .models import ImportJob, StageEntry
from .serializers import EntrantDetailsSerializer

STAGE_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The stage's id.")
ENTRANT_CODE = OpenApiParameter(
    "code", str, OpenApiParameter.PATH, description="The entrant's code in the tournament."
)
MODES = [
    ("add", "add the file's entrants to the stage's list"),
    ("replace", "make the file the stage's list: add, change and remove by code"),
]


class ImportQuerySerializer(serializers.Serializer):
    dry_run = serializers.BooleanField(
        default=False, help_text="1: check the file and answer with a preview; write nothing."
    )
    mode = serializers.ChoiceField(
        choices=MODES,
        default="add",
        help_text="add (default): the file's entrants join the list; replace: the file "
        "becomes the list (also as a JSON or multipart field).",
    )


class CsvJsonSerializer(serializers.Serializer):
    csv = serializers.CharField(trim_whitespace=False, help_text="The entrant CSV, header first.")


class CsvFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The entrant CSV file (UTF-8).")


class EntrantChangeSerializer(serializers.Serializer):
    code = serializers.CharField()
    # Named as the API names it, not the Serializer's own ``fields`` (the stubs object).
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(),
        help_text="{field: [old, new]} for every detail that changes.",
    )


class KnownPersonSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The row's entrant code.")
    rating_id = serializers.CharField(help_text="The rating-list ID the row carries.")
    person = serializers.IntegerField(help_text="The person's id (GET /api/players/{id}/).")
    name = serializers.CharField(help_text="The person's name as the site knows it.")
    federation = serializers.CharField()
    entries = serializers.IntegerField(help_text="The person's entries so far.")


class ImportPreviewSerializer(serializers.Serializer):
    """A dry run's preview; with ``mode=replace`` (dry run or not) also who is added,
    changed and removed, by code."""

    count = serializers.IntegerField(
        help_text="How many entrants the file adds (replace: how many the new list has)."
    )
    nations = serializers.ListField(
        child=serializers.ListField(),
        help_text="[[nation, count], …], the largest nation first.",
    )
    multi_entry_persons = serializers.IntegerField(
        help_text="How many persons hold more than one entry."
    )
    known_people = KnownPersonSerializer(
        many=True,
        help_text="The rows whose rating-list ID belongs to a person the site knows already "
        "(replace: among the rows added or given another ID).",
    )
    mode = serializers.CharField(required=False, help_text="replace (only in that mode).")
    applied = serializers.BooleanField(
        required=False,
        help_text="replace: false for a preview (nothing written), true once the list is replaced.",
    )
    added = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="replace: the codes added."
    )
    changed = EntrantChangeSerializer(
        many=True, required=False, help_text="replace: the entrants whose details change."
    )
    removed = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="replace: the codes removed."
    )
    unchanged = serializers.IntegerField(
        required=False, help_text="replace: the entrants the file keeps as they are."
    )


class ImportResultSerializer(serializers.Serializer):
    imported = serializers.IntegerField()


class ImportJobSerializer(serializers.Serializer):
    """An import job's progress and, once it finished, its outcome."""

    id = serializers.IntegerField()
    stage = serializers.IntegerField(help_text="The stage's id.")
    mode = serializers.ChoiceField(choices=MODES)
    dry_run = serializers.BooleanField(
        help_text="true: the job only checks the file and answers a preview in result."
    )
    # A string, not an enumeration: the schema would name the enum after the field
    # ("status"), the name the draw job's status has (see ENUM_NAME_OVERRIDES).
    status = serializers.CharField(
        help_text="pending (waiting for a worker), running, succeeded or failed."
    )
    status_display = serializers.CharField(
        help_text="The status in words; a running job says what it does (checking, importing)."
    )
    phase = serializers.CharField(
        help_text="checking (reading the file) or saving (writing it) once it ran; empty before."
    )
    total_rows = serializers.IntegerField(help_text="The file's data rows.")
    done_rows = serializers.IntegerField(help_text="The rows checked so far.")
    percent = serializers.IntegerField(help_text="0 to 100 (100 once it succeeded).")
    error = serializers.CharField(help_text="Why it failed (empty unless it did).")
    details = serializers.ListField(
        child=serializers.DictField(),
        help_text="The bad rows of a failed job as {line, message}, every one of them.",
    )
    result = serializers.DictField(
        allow_null=True,
        help_text="Once it succeeded: {imported} for an added file; the preview (as the "
        "dry run's 200 answer) for a dry run; the replacement by code for mode=replace. "
        "null before.",
    )
    finished = serializers.BooleanField()


class ImportJobStartedSerializer(ImportJobSerializer):
    url = serializers.CharField(help_text="The job's address: GET it to follow the job.")


def job_url(job: ImportJob) -> str:
    return reverse("api-import-job", args=[job.pk])


def import_options(request) -> dict:
    """``dry_run`` and ``mode`` from the query string, or from the body's fields."""
    options = dict(request.query_params.items())
    if isinstance(request.data, Mapping):  # not a text/csv body, nor JSON null or a list
        options.update((k, request.data[k]) for k in ("dry_run", "mode") if k in request.data)
    query = ImportQuerySerializer(data=options)
    query.is_valid(raise_exception=True)
    return query.validated_data


def csv_text(request) -> str:
    """The CSV of an import request: a text/csv body, a file field ``file``, or ``{"csv"}``."""
    return request_csv_text(request, CsvJsonSerializer)


class EntrantImportView(APIView):
    """Import entrants from a CSV into the stage and its tournament: all rows or none, every
    bad row listed (organizers; the stage must be open for registration). With
    ``?dry_run=1`` the file is only checked and previewed. With ``mode=replace`` the file
    becomes the stage's list: codes it adds, changes and removes, all in one step.

    A file of more data rows than the server imports at once (5000 unless configured) is
    imported by a background job, dry run or not: the answer is 202 with the job's progress
    and its address (``url``, also the ``Location`` header); GET it until ``finished``, and
    find the outcome in its ``result`` (or the bad rows in ``details``). One import of a
    stage runs at a time (409)."""

    parser_classes = [CsvParser, JsonParser, MultiPartParser]

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
            202: ImportJobStartedSerializer,
            **error_responses(400, 403, 404, 409),
        },
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        options = import_options(request)
        text = csv_text(request)
        rows = jobs.data_rows(text)
        if jobs.runs_as_job(rows):
            job = jobs.start_import(
                request.user,
                stage,
                text,
                mode=options["mode"],
                dry_run=options["dry_run"],
                rows=rows,
            )
            job.refresh_from_db()  # where tasks run in this process, it has finished
            url = job_url(job)
            return Response(
                {**jobs.job_progress(job), "url": url},
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": url},
            )
        if options["mode"] == "replace":
            if options["dry_run"]:
                replacement = services.preview_replace(stage, text)
            else:
                replacement = services.replace_entrants(request.user, stage, text)
            return Response(importing.replace_data(replacement, applied=not options["dry_run"]))
        if options["dry_run"]:
            return Response(importing.preview_data(services.preview_import(stage, text)))
        preview = services.import_entrants(request.user, stage, text)
        return Response({"imported": preview.count}, status=status.HTTP_201_CREATED)

    # An entrant whose code is "import" is addressed here, since this address comes first.
    @extend_schema(exclude=True)
    def patch(self, request, pk: int) -> Response:
        return change_entrant(request, pk, "import")

    @extend_schema(exclude=True)
    def delete(self, request, pk: int) -> Response:
        return remove_entrant(request, pk, "import")


class ImportJobView(APIView):
    """An entrant import job: its progress, then its outcome (organizers of its tournament,
    as a draw job's progress)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The job's id.")
        ],
        responses={200: ImportJobSerializer, **error_responses(403, 404)},
    )
    def get(self, request, pk: int) -> Response:
        job = ImportJob.objects.select_related("stage__tournament").filter(pk=pk).first()
        if job is None:
            raise NotFound(_("There is no import job %(id)s.") % {"id": pk})
        require_organizer(request.user, job.stage.tournament)
        return Response(jobs.job_progress(job.stop_if_stalled()))


class StageEntrantSerializer(serializers.ModelSerializer):
    code = serializers.CharField(source="entrant.code")
    name = serializers.CharField(source="entrant.name")
    nation = serializers.CharField(source="entrant.nation")
    rating = serializers.IntegerField(source="entrant.rating", allow_null=True)
    person = serializers.CharField(source="entrant.person")
    email = serializers.EmailField(source="entrant.email", allow_blank=True)

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


def entrant_data(entry: StageEntry) -> dict:
    return StageEntrantSerializer(entry).data


def entrant_url(entry: StageEntry) -> str:
    return reverse("api-stage-entrant", kwargs={"pk": entry.stage_id, "code": entry.entrant.code})


def change_entrant(request, pk: int, code: str) -> Response:
    stage = stage_for_action(request, pk)
    params = EntrantDetailsSerializer(data=request.data, partial=True)
    params.is_valid(raise_exception=True)
    entry = services.update_entrant(request.user, stage, code, **params.validated_data)
    return Response(entrant_data(entry))


def remove_entrant(request, pk: int, code: str) -> Response:
    stage = stage_for_action(request, pk)
    services.remove_entrant(request.user, stage, code)
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    get=extend_schema(
        parameters=[STAGE_ID],
        responses={200: StageEntrantSerializer(many=True), **error_responses(400, 403, 404)},
    ),
    post=extend_schema(
        parameters=[STAGE_ID],
        request=EntrantDetailsSerializer,
        responses={201: StageEntrantSerializer, **error_responses(400, 403, 404, 409)},
    ),
)
class StageEntrantListView(generics.ListAPIView):
    """The stage's entrants in code order (organizers). POST adds one entrant while the
    stage's registration is open (409 once it is closed: withdraw entrants then)."""

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

    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = EntrantDetailsSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        entry = services.add_entrant(request.user, stage, **params.validated_data)
        return Response(
            entrant_data(entry),
            status=status.HTTP_201_CREATED,
            headers={"Location": entrant_url(entry)},
        )


class StageEntrantView(APIView):
    """One entrant of the stage (organizers, while its registration is open; 409 once it is
    closed: withdraw entrants then)."""

    @extend_schema(
        parameters=[STAGE_ID, ENTRANT_CODE],
        request=EntrantDetailsSerializer(partial=True),
        responses={200: StageEntrantSerializer, **error_responses(400, 403, 404, 409)},
    )
    def patch(self, request, pk: int, code: str) -> Response:
        """Change some of the entrant's details: name, nation, rating, person, e-mail (the
        code is the entrant's key and cannot change)."""
        return change_entrant(request, pk, code)

    @extend_schema(
        parameters=[STAGE_ID, ENTRANT_CODE],
        responses={204: None, **error_responses(403, 404, 409)},
    )
    def delete(self, request, pk: int, code: str) -> Response:
        """Take the entrant off the stage's list (and out of the tournament, when no other
        stage has them)."""
        return remove_entrant(request, pk, code)


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
        response = HttpResponse(
            services.export_entrants_csv(stage), content_type="text/csv; charset=utf-8"
        )
        filename = f"{stage.tournament.slug}-stage-{stage.order}-entrants.csv"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
