"""REST API of games (with their version and history), result entry, withdrawals and the
choice of a group's TD. The same permission rules as the pages: the group's TD and the
tournament's organizers enter results; organizers name TDs."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from apps.core.api import CsvParser, JsonParser, decode_text, error_responses
from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.core.people import display_name
from apps.core.permissions import Actor, is_organizer, require_organizer, require_result_entry
from apps.core.results import Result
from apps.entrants.models import StageEntry
from apps.entrants.serializers import PublicEntrantSerializer
from apps.groups.lookups import group_for_reading
from apps.groups.models import Game, Group
from apps.groups.serializers import GroupSerializer
from apps.groups.services import assign_td
from apps.stages.lookups import stage_for_action, stage_for_reading
from apps.stages.permissions import visible_stages_filter

from . import import_jobs
from .history import game_events
from .imports import ImportReport, import_results
from .models import PGN_MAX_LENGTH, ResultImportJob, ResultReport
from .reports import (
    can_see_reports,
    confirm_report,
    dispute_report,
    player_side,
    report_result,
    require_opponent,
)
from .services import enter_result, forfeit_result, withdraw_entrant

# ---------------------------------------------------------------------------
# Serializers
# ---------------------------------------------------------------------------


class ChangeSerializer(serializers.Serializer):
    """One audit event of a game: who changed it, when, from what to what, and why."""

    at = serializers.DateTimeField(source="created_at")
    actor = serializers.SerializerMethodField(
        help_text="The name the person who made the change shows others (never a login "
        'name: e.g. "Organizer 3" when unset); null if the account is gone.'
    )
    action = serializers.CharField(
        help_text=f'"{Action.RESULT_ENTERED}", "{Action.RESULT_CORRECTED}" or '
        f'"{Action.ENTRANT_WITHDRAWN}".'
    )
    old = serializers.SerializerMethodField(help_text="The result before ('' = in progress).")
    new = serializers.SerializerMethodField(help_text="The result after.")
    adjudicated = serializers.SerializerMethodField()
    reason = serializers.SerializerMethodField()

    def get_actor(self, event: AuditEvent) -> str | None:
        return display_name(event.actor) if event.actor else None

    def get_old(self, event: AuditEvent) -> str:
        if event.action == Action.ENTRANT_WITHDRAWN:
            return ""
        return event.data.get("old", "")

    def get_new(self, event: AuditEvent) -> str:
        if event.action == Action.ENTRANT_WITHDRAWN:
            # the forfeit the withdrawal gave this game (a game in its history has
            # ``forfeited_by`` set)
            game = self.context["game"]
            return forfeit_result(game) if game.forfeited_by_id is not None else ""
        return event.data.get("new", "")

    def get_adjudicated(self, event: AuditEvent) -> bool:
        return bool(event.data.get("adjudicated", False))

    def get_reason(self, event: AuditEvent) -> str:
        return event.data.get("reason", "")


class GameDetailSerializer(serializers.ModelSerializer):
    """A game: its players, result, adjudication flag and version (send the version back
    as ``expected_version`` when entering a result), and its history, newest first."""

    url = serializers.SerializerMethodField()
    group = serializers.IntegerField(source="group_id")
    group_number = serializers.IntegerField(source="group.number")
    stage = serializers.IntegerField(source="group.stage_id")
    white = PublicEntrantSerializer()
    black = PublicEntrantSerializer()
    history = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "url",
            "group",
            "group_number",
            "stage",
            "number",
            "round",
            "white",
            "black",
            "result",
            "adjudicated",
            "version",
            "updated_at",
            "finished_on",
            "pgn",
            "history",
        ]

    def get_url(self, game: Game) -> str:
        return reverse("api-game", args=[game.pk])

    @extend_schema(responses=ChangeSerializer(many=True))
    def get_history(self, game: Game) -> list[dict]:
        changes = ChangeSerializer(game_events(game), many=True, context={"game": game})
        return changes.data  # type: ignore[return-value]  # many=True: a list (stubs: a dict)


class ResultRequestSerializer(serializers.Serializer):
    result = serializers.ChoiceField(
        choices=Result.choices,
        allow_blank=True,
        help_text="1-0, 0-1, 1/2-1/2, +- or -+ (forfeits), -- (both forfeit), '' (in progress).",
    )
    expected_version = serializers.IntegerField(
        min_value=0,
        help_text="The game's version you based the result on; a newer one answers 409.",
    )
    adjudicated = serializers.BooleanField(default=False)
    reason = serializers.CharField(
        max_length=200,
        default="",
        allow_blank=True,
        help_text="Required when correcting a finished game.",
    )
    pgn = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=PGN_MAX_LENGTH,
        help_text="The game's score (movetext or a whole PGN game), checked move by move "
        "against the result; '' removes it; absent: the stored score stays.",
    )
    finished_on = serializers.DateField(
        required=False,
        allow_null=True,
        help_text="The day the game ended; absent: the stored day, or today for a new result.",
    )


class WithdrawalRequestSerializer(serializers.Serializer):
    entrant = serializers.CharField(max_length=32, help_text="The entrant's code.")
    reason = serializers.CharField(max_length=200)


class ForfeitSerializer(serializers.ModelSerializer):
    white = serializers.CharField(source="white.code", help_text="Entrant code.")
    black = serializers.CharField(source="black.code", help_text="Entrant code.")

    url = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = ["id", "url", "number", "white", "black", "result", "version"]

    def get_url(self, game: Game) -> str:
        return reverse("api-game", args=[game.pk])


class WithdrawalSerializer(serializers.Serializer):
    entrant = PublicEntrantSerializer()
    withdrawn_at = serializers.DateTimeField()
    reason = serializers.CharField()
    games = ForfeitSerializer(
        many=True, help_text="The games that became forfeit losses for the entrant."
    )


class DirectorRequestSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150, allow_blank=True, help_text="The new TD's username; '' removes the TD."
    )

    def validate_username(self, value: str):
        value = value.strip()
        if not value:
            return None
        user = get_user_model().objects.filter(username=value, is_active=True).first()
        if user is None:
            raise serializers.ValidationError(
                _("There is no user %(name)r; check the spelling.") % {"name": value}
            )
        return user


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


def game_for(request, pk: int) -> Game:
    """A game of a stage the user may see, or 404."""
    game = (
        Game.objects.filter(visible_stages_filter(request.user, "group__stage__"), pk=pk)
        .select_related("white", "black", "group__stage__tournament")
        .first()
    )
    if game is None:
        raise NotFound(
            _("There is no game %(id)s, or its stage is not published yet.") % {"id": pk}
        )
    return game


class GameView(APIView):
    """A game with its version and the history of its result."""

    @extend_schema(responses={200: GameDetailSerializer, **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        return Response(GameDetailSerializer(game_for(request, pk)).data)


class GameResultView(APIView):
    """Enter or correct a game's result (the group's TD and the organizers).

    Send the ``version`` you read as ``expected_version``: if the game changed meanwhile the
    answer is 409 with the current result and version in ``details``, and nothing changes.
    Correcting a finished game needs a ``reason``.
    """

    @extend_schema(
        request=ResultRequestSerializer,
        responses={200: GameDetailSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        game = game_for(request, pk)
        require_result_entry(request.user, game.group)
        params = ResultRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        enter_result(
            request.user,
            game,
            data["result"],
            expected_version=data["expected_version"],
            adjudicated=data["adjudicated"],
            reason=data["reason"],
            pgn=data.get("pgn"),
            finished_on=data.get("finished_on"),
        )
        return Response(GameDetailSerializer(game_for(request, pk)).data)


class WithdrawalView(APIView):
    """Withdraw an entrant from the stage: every unfinished game of theirs becomes a forfeit
    loss, in one step (the TD of the entrant's group and the organizers)."""

    @extend_schema(
        request=WithdrawalRequestSerializer,
        responses={200: WithdrawalSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_reading(request, pk)
        directs = Group.objects.filter(stage=stage, td_id=request.user.pk).exists()
        if not (directs or is_organizer(request.user, stage.tournament)):
            raise ActionError(
                ErrorCode.PERMISSION_DENIED,
                _("Only the TD of the entrant's group and the organizers may withdraw entrants."),
            )
        params = WithdrawalRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        code = params.validated_data["entrant"]
        entry = (
            StageEntry.objects.filter(stage=stage, entrant__code=code)
            .select_related("entrant")
            .first()
        )
        if entry is None:
            raise NotFound(
                _("There is no entrant %(code)r in stage %(id)s.") % {"code": code, "id": stage.pk}
            )
        changed = withdraw_entrant(request.user, entry, params.validated_data["reason"])
        entry.refresh_from_db()
        games = Game.objects.filter(pk__in=[g.pk for g in changed]).select_related("white", "black")
        answer = {
            "entrant": entry.entrant,
            "withdrawn_at": entry.withdrawn_at,
            "reason": entry.withdrawal_reason,
            "games": games.order_by("number"),
        }
        return Response(WithdrawalSerializer(answer).data)


class GroupDirectorView(APIView):
    """Name the group's tournament director by username, or remove them with ''
    (organizers)."""

    @extend_schema(
        request=DirectorRequestSerializer,
        responses={200: GroupSerializer, **error_responses(400, 403, 404)},
    )
    def post(self, request, pk: int) -> Response:
        group = group_for_reading(request, pk)
        require_organizer(request.user, group.stage.tournament)
        params = DirectorRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        group = assign_td(request.user, group, params.validated_data["username"])
        return Response(GroupSerializer(group).data)


# ---------------------------------------------------------------------------
# Results players report, confirmed or disputed by the opponent
# ---------------------------------------------------------------------------


class ResultReportSerializer(serializers.ModelSerializer):
    """A result a player reported: ``pending`` until the opponent confirms it (the result
    then stands) or disputes it (the group's TD decides)."""

    game = serializers.IntegerField(source="game_id")
    # Plain text: the codes are those of the request (one result enum in the schema).
    result = serializers.CharField(help_text="1-0, 0-1 or 1/2-1/2.")

    class Meta:
        model = ResultReport
        fields = [
            "id",
            "game",
            "status",
            "result",
            "reporter_side",
            "pgn",
            "reason",
            "created_at",
            "answered_at",
        ]
        extra_kwargs = {
            "pgn": {"help_text": "The score as the game keeps it on confirmation ('' = none)."},
            "reason": {"help_text": "Why the opponent disputed the result ('' otherwise)."},
        }


class ResultReportRequestSerializer(serializers.Serializer):
    result = serializers.ChoiceField(
        choices=Result.choices,
        help_text="1-0, 0-1 or 1/2-1/2 (forfeits are the TD's to enter, and '' is no result: 400).",
    )
    pgn = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        max_length=PGN_MAX_LENGTH,
        help_text="The game score, PGN movetext or a whole PGN game: checked move by move "
        "and against the result (a bad score answers 400 and says why).",
    )


class DisputeRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500, help_text="Why the result is wrong.")


def _players_only(user: Actor, game: Game) -> None:
    if player_side(user, game) is None:
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the two players of a game may report its result."),
        )


def report_for(game: Game, report_id: int) -> ResultReport:
    report = ResultReport.objects.filter(game=game, pk=report_id).first()
    if report is None:
        raise NotFound(
            _("Game %(game)s has no report %(id)s.") % {"game": game.pk, "id": report_id}
        )
    return report


REPORT_ID = OpenApiParameter(
    "report_id", int, OpenApiParameter.PATH, description="The report's id."
)


class GameReportsView(APIView):
    """The results reported for a game, newest first (the two players, the group's TD and
    the organizers), and reporting one (the two players)."""

    @extend_schema(responses={200: ResultReportSerializer(many=True), **error_responses(403, 404)})
    def get(self, request, pk: int) -> Response:
        game = game_for(request, pk)
        if not can_see_reports(request.user, game):
            raise ActionError(
                ErrorCode.PERMISSION_DENIED,
                _("Only the players, the group's TD and the organizers see reported results."),
            )
        return Response(ResultReportSerializer(game.reports.all(), many=True).data)

    @extend_schema(
        request=ResultReportRequestSerializer,
        responses={201: ResultReportSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        """Report the game's result (a player of the game): 409 when the game is finished,
        its group closed, its stage not in play, or a report awaits the opponent already."""
        game = game_for(request, pk)
        _players_only(request.user, game)
        params = ResultReportRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        report = report_result(request.user, game, data["result"], data["pgn"])
        return Response(ResultReportSerializer(report).data, status=201)


class ReportConfirmView(APIView):
    """Confirm a pending report (the reporter's opponent): its result becomes the game's."""

    @extend_schema(
        parameters=[REPORT_ID],
        request=None,
        responses={200: ResultReportSerializer, **error_responses(403, 404, 409)},
    )
    def post(self, request, pk: int, report_id: int) -> Response:
        game = game_for(request, pk)
        report = confirm_report(request.user, report_for(game, report_id))
        return Response(ResultReportSerializer(report).data)


class ReportDisputeView(APIView):
    """Dispute a pending report, with the reason (the reporter's opponent): the group's TD
    decides, and the game keeps no result meanwhile."""

    @extend_schema(
        parameters=[REPORT_ID],
        request=DisputeRequestSerializer,
        responses={200: ResultReportSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int, report_id: int) -> Response:
        game = game_for(request, pk)
        report = report_for(game, report_id)
        require_opponent(request.user, report, game)
        params = DisputeRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        report = dispute_report(request.user, report, params.validated_data["reason"])
        return Response(ResultReportSerializer(report).data)


# ---------------------------------------------------------------------------
# Importing results from a file
# ---------------------------------------------------------------------------

PGN_MEDIA_TYPE = "application/x-chess-pgn"
FILE_FORMATS = [
    ("csv", "CSV: white,black,result[,date][,pgn] (entrant codes), header first"),
    ("pgn", "PGN: games found by their WhiteCode/BlackCode tags, or White/Black names"),
]


class PgnParser(CsvParser):
    """A raw ``application/x-chess-pgn`` body, parsed into a string as a CSV body is (the
    games themselves are read by the import)."""

    media_type = PGN_MEDIA_TYPE


class _NoFormatOverride:
    """DRF's settings, except that ``?format=`` does not choose the answer's renderer."""

    URL_FORMAT_OVERRIDE = None

    def __getattr__(self, name: str):
        return getattr(api_settings, name)


class FileFormatNegotiation(DefaultContentNegotiation):
    """Here ``?format=csv|pgn`` names the uploaded file's format; the answer is JSON."""

    # Duck-typed: DRF's settings but for the format override (the stubs want the class).
    settings = _NoFormatOverride()  # type: ignore[assignment]


class ResultImportQuerySerializer(serializers.Serializer):
    dry_run = serializers.BooleanField(
        default=False,
        help_text="1: check the file and answer what it would do; write nothing.",
    )
    format = serializers.ChoiceField(
        choices=FILE_FORMATS,
        required=False,
        help_text="The file's format (also as a multipart or JSON field). Without it: the "
        "body's media type, the JSON key, or else guessed (PGN when the text starts with '[').",
    )


class ResultImportJsonSerializer(serializers.Serializer):
    csv = serializers.CharField(
        required=False, trim_whitespace=False, help_text="The results CSV, header first."
    )
    pgn = serializers.CharField(
        required=False, trim_whitespace=False, help_text="The PGN file's text."
    )

    def validate(self, attrs: dict) -> dict:
        if len(attrs) != 1:
            raise serializers.ValidationError(
                _('Send the file as {"csv": "..."} or as {"pgn": "..."}, one of them.')
            )
        return attrs


class ResultImportFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The results file, CSV or PGN (UTF-8).")
    format = serializers.ChoiceField(choices=FILE_FORMATS, required=False)
    dry_run = serializers.BooleanField(required=False)


class ResultImportReportSerializer(serializers.Serializer):
    """What the import did (``dry_run``: would do). Bad lines answer 400 instead, code
    ``bad_rows``, every bad line in ``details`` as {line, message}, and nothing changes."""

    dry_run = serializers.BooleanField()
    format = serializers.ChoiceField(choices=FILE_FORMATS, source="file_format")
    applied = serializers.IntegerField(
        help_text="Games changed: results set, and finished games given a score or a date."
    )
    results = serializers.IntegerField(help_text="Of those, games whose result was set.")
    unchanged = serializers.IntegerField(
        help_text="Lines whose game is finished already with that result (nothing to do)."
    )
    # Named as the API names it, not the Serializer's own ``errors`` (the stubs object).
    errors = serializers.ListField(  # type: ignore[assignment]
        child=serializers.DictField(),
        default=list,
        help_text="Always empty here: a file with bad lines answers 400.",
    )


class ResultImportJobSerializer(serializers.Serializer):
    """A results import job's progress and, once it finished, its outcome."""

    id = serializers.IntegerField()
    stage = serializers.IntegerField(help_text="The stage's id.")
    group = serializers.IntegerField(
        allow_null=True, help_text="The group's id; null for an import into the whole stage."
    )
    format = serializers.ChoiceField(choices=FILE_FORMATS)
    dry_run = serializers.BooleanField(
        help_text="true: the job only checks the file and answers what it would do in result."
    )
    # A string, not an enumeration: the schema would name the enum after the field
    # ("status"), the name the draw job's status has (see ENUM_NAME_OVERRIDES).
    status = serializers.CharField(
        help_text="pending (waiting for a worker), running, succeeded or failed."
    )
    status_display = serializers.CharField(
        help_text="The status in words; a running job says what it does (reading, importing)."
    )
    phase = serializers.CharField(
        allow_blank=True,
        help_text="checking (reading the file) or saving (checking the games and writing "
        "them) once it ran; empty before.",
    )
    total_lines = serializers.IntegerField(help_text="The file's lines.")
    done_lines = serializers.IntegerField(help_text="The lines read so far.")
    games = serializers.IntegerField(help_text="PGN games (CSV rows) read so far.")
    percent = serializers.IntegerField(help_text="0 to 100 (100 once it succeeded).")
    error = serializers.CharField(
        allow_blank=True, help_text="Why it failed (empty unless it did)."
    )
    details = serializers.ListField(
        child=serializers.DictField(),
        help_text="The bad lines of a failed job as {line, message}, every one of them.",
    )
    result = serializers.DictField(
        allow_null=True,
        help_text="Once it succeeded: the import's answer as a request's 200 (format, "
        "dry_run, applied, results, unchanged, errors), with scores_only and the first 500 "
        "changes ({line, group_number, number, white, black, old, new, result_set, "
        "finished_on, scored}). null before.",
    )
    finished = serializers.BooleanField()


class ResultImportJobStartedSerializer(ResultImportJobSerializer):
    url = serializers.CharField(help_text="The job's address: GET it to follow the job.")


def _media_type(request) -> str:
    return (request.content_type or "").split(";")[0].strip().lower()


def import_request(request) -> tuple[str, str | None, bool]:
    """The file's text, its format (None: to be guessed) and ``dry_run``, from a text/csv or
    PGN body, a multipart ``file`` field, or JSON ``{"csv"}``/``{"pgn"}``; the options come
    from the query string or the body's fields."""
    options = dict(request.query_params.items())
    body = request.data
    if hasattr(body, "keys"):
        options.update((k, body[k]) for k in ("dry_run", "format") if k in body)
    query = ResultImportQuerySerializer(data=options)
    query.is_valid(raise_exception=True)
    file_format = query.validated_data.get("format")
    dry_run = query.validated_data["dry_run"]
    media_type = _media_type(request)
    if media_type in (CsvParser.media_type, PGN_MEDIA_TYPE) and isinstance(body, str):
        return body, file_format or ("pgn" if media_type == PGN_MEDIA_TYPE else "csv"), dry_run
    if media_type == MultiPartParser.media_type:
        upload = request.FILES.get("file")
        if upload is None:
            raise serializers.ValidationError(
                {"file": _("Send the results file as the multipart field 'file'.")}
            )
        return decode_text(upload.read()), file_format, dry_run
    sent = ResultImportJsonSerializer(data=body)
    sent.is_valid(raise_exception=True)
    ((key, text),) = sent.validated_data.items()
    return text, file_format or key, dry_run


def report_data(report: ImportReport) -> dict:
    return ResultImportReportSerializer(report).data


IMPORT_REQUEST = {
    "text/csv": OpenApiTypes.STR,
    PGN_MEDIA_TYPE: OpenApiTypes.STR,
    "application/json": ResultImportJsonSerializer,
    "multipart/form-data": ResultImportFileSerializer,
}
IMPORT_RESPONSES = {
    200: ResultImportReportSerializer,
    202: ResultImportJobStartedSerializer,
    **error_responses(400, 403, 404, 409),
}


def job_started(job: ResultImportJob) -> Response:
    """The 202 answer to an import run as a job: its progress, its address (``url`` and
    ``Location``)."""
    job.refresh_from_db()  # where tasks run in this process, it has finished
    url = import_jobs.api_url(job)
    return Response(
        {**import_jobs.job_progress(job), "url": url},
        status=status.HTTP_202_ACCEPTED,
        headers={"Location": url},
    )


class ResultImportViewBase(APIView):
    parser_classes = [CsvParser, PgnParser, JsonParser, MultiPartParser]
    content_negotiation_class = FileFormatNegotiation


class GroupResultImportView(ResultImportViewBase):
    """Import the group's results from a CSV or PGN file (the group's TD and the
    organizers): every line or none, every bad line listed with its line number. Games are
    found by the players' entrant codes (PGN: also by their names, when unique in the
    group); a game finished already with the same result is left as it is. With
    ``?dry_run=1`` the file is only checked.

    A file of more characters than the server imports at once (200,000 unless configured)
    is imported by a background job, dry run or not: the answer is 202 with the job's
    progress and its address (``url``, also the ``Location`` header); GET it until
    ``finished``, and find the outcome in its ``result`` (or the bad lines in ``details``).
    One import into a group (or into its whole stage) at a time: another one answers 409
    while a job waits or runs."""

    @extend_schema(
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The group's id."),
            ResultImportQuerySerializer,
        ],
        request=IMPORT_REQUEST,
        responses=IMPORT_RESPONSES,
    )
    def post(self, request, pk: int) -> Response:
        group = group_for_reading(request, pk)
        require_result_entry(request.user, group)
        text, file_format, dry_run = import_request(request)
        if import_jobs.runs_as_job(text):
            return job_started(
                import_jobs.start_import(
                    request.user, group=group, text=text, file_format=file_format, dry_run=dry_run
                )
            )
        report = import_results(
            request.user, group=group, text=text, file_format=file_format, dry_run=dry_run
        )
        return Response(report_data(report))


class StageResultImportView(ResultImportViewBase):
    """Import results into the whole stage from a CSV or PGN file (organizers): as the
    group import, a game found in whichever group the two players meet (PGN names must be
    unique in the stage). A big file runs as a job (202), as the group import's."""

    @extend_schema(
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The stage's id."),
            ResultImportQuerySerializer,
        ],
        request=IMPORT_REQUEST,
        responses=IMPORT_RESPONSES,
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        text, file_format, dry_run = import_request(request)
        if import_jobs.runs_as_job(text):
            return job_started(
                import_jobs.start_import(
                    request.user, stage=stage, text=text, file_format=file_format, dry_run=dry_run
                )
            )
        report = import_results(
            request.user, stage=stage, text=text, file_format=file_format, dry_run=dry_run
        )
        return Response(report_data(report))


class ResultImportJobView(APIView):
    """A results import job: its progress, then its outcome (whoever may import into its
    group — the group's TD, the organizers — or, for a stage's import, the organizers)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The job's id.")
        ],
        responses={200: ResultImportJobSerializer, **error_responses(403, 404)},
    )
    def get(self, request, pk: int) -> Response:
        job = (
            ResultImportJob.objects.select_related("stage__tournament", "group")
            .filter(pk=pk)
            .first()
        )
        if job is None:
            raise NotFound(_("There is no results import job %(id)s.") % {"id": pk})
        if job.group is not None:
            job.group.stage = job.stage
            require_result_entry(request.user, job.group)
        else:
            require_organizer(request.user, job.stage.tournament)
        return Response(import_jobs.job_progress(job.stop_if_stalled()))
