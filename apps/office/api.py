"""REST API of tournaments, stages, their actions (registration, draw, publish), draw jobs and
the progress of a publication.

Tournaments and stages are created and changed here too: ``POST /api/tournaments/``,
``PATCH /api/tournaments/{slug}/``, ``POST /api/tournaments/{slug}/stages/``,
``PATCH``/``DELETE /api/stages/{id}/``. The serializers check the values; the actions
(``apps.stages.services``) check the permission and what is frozen, and write the audit.
"""

from __future__ import annotations

from collections.abc import Callable

import django_filters
from django.db.models import Prefetch, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses
from apps.core.converters import ID_REGEX
from apps.core.permissions import require_organizer
from apps.entrants.serializers import EntrantDetailsSerializer
from apps.entrants.services import close_registration, reopen_registration
from apps.groups.lookups import counted_stage_for_reading, counted_stages_visible_to
from apps.stages.lookups import stage_for_action
from apps.stages.models import DrawJob, Stage, Tournament
from apps.stages.permissions import visible_stages_filter
from apps.stages.serializers import (
    StageSerializer,
    StageWriteSerializer,
    TournamentCreateSerializer,
    TournamentSerializer,
    TournamentWriteSerializer,
)
from apps.stages.services import (
    add_stage,
    delete_stage,
    new_tournament,
    require_tournament_creator,
    update_stage,
    update_tournament,
)

from .draw import job_progress
from .lab.runs import progress as lab_progress
from .lab.runs import start_lab_run
from .lab.serializers import LabRunRequestSerializer, LabRunSerializer
from .models import LabRun
from .publication import not_published, publication_progress
from .seeds import generate_seed
from .services import cancel_draw, publish_draw, start_draw
from .swiss.late import add_late_entrant
from .swiss.pairing import start_next_round
from .swiss.state import swiss_state


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
        "failure": serializers.ChoiceField(
            DrawJob.Failure.choices,
            help_text="Why a failed draw failed: empty (stopped: cancelled, lost or out of "
            "time; the same seed may succeed), engine (the engine refused: the same seed "
            "fails again) or settings (no seed can draw these settings with these entrants).",
        ),
        "digest": serializers.CharField(),
        "finished": serializers.BooleanField(),
    },
)


def _step(name: str, done: str, total: str):
    return inline_serializer(
        name,
        {
            "done": serializers.IntegerField(help_text=done),
            "total": serializers.IntegerField(help_text=total),
            "percent": serializers.IntegerField(),
            "finished": serializers.BooleanField(),
        },
    )


PublicationProgressSerializer = inline_serializer(
    "PublicationProgress",
    {
        "stage": serializers.IntegerField(),
        "published_at": serializers.DateTimeField(),
        "status": serializers.ChoiceField(["running", "succeeded"]),
        "status_display": serializers.CharField(),
        "percent": serializers.IntegerField(),
        "finished": serializers.BooleanField(help_text="Every step below is finished."),
        "standings": _step(
            "PublicationStandings",
            "Groups whose standings are computed since the publication.",
            "Groups of the stage.",
        ),
        "ranking": _step(
            "PublicationRanking",
            "Entrants in the stored stage ranking.",
            "Entrants seated in the stage's groups.",
        ),
        "files": _step(
            "PublicationFiles",
            "Verification files (DRAW.json and its inputs) stored.",
            "Verification files of a stage.",
        ),
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
    """Tournaments (public), each with the stages you may see; created by staff and users
    with the right to, changed by their organizers."""

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

    def _answer(self, tournament: Tournament, status_code: int = status.HTTP_200_OK) -> Response:
        # Read again, with the stages this user may see.
        data = TournamentSerializer(self.get_queryset().get(pk=tournament.pk)).data
        headers = {"Location": data["url"]} if status_code == status.HTTP_201_CREATED else None
        return Response(data, status=status_code, headers=headers)

    @extend_schema(
        summary="Create a tournament",
        description="Staff and users with the permission stages.add_tournament create "
        "tournaments; the creator becomes its organizer. It starts with the stages of "
        "stage_kinds (default: one preliminary), each with its kind's defaults.",
        request=TournamentCreateSerializer,
        responses={201: TournamentSerializer, **error_responses(400, 403)},
    )
    def create(self, request) -> Response:
        require_tournament_creator(request.user)
        params = TournamentCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        tournament = new_tournament(request.user, **params.validated_data)
        return self._answer(tournament, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a tournament's settings",
        description="Organizers. Send only what changes. Games per player are frozen once a "
        "Silli stage that plays them has closed its registration; points, tie-breaks and "
        "ranking once a stage is published (409, nothing changed).",
        request=TournamentWriteSerializer,
        responses={200: TournamentSerializer, **error_responses(400, 403, 404, 409)},
    )
    def partial_update(self, request, slug: str) -> Response:
        tournament = self.get_object()
        require_organizer(request.user, tournament)
        params = TournamentWriteSerializer(tournament, data=request.data, partial=True)
        params.is_valid(raise_exception=True)
        tournament = update_tournament(request.user, tournament, **params.validated_data)
        return self._answer(tournament)

    @extend_schema(
        summary="Add a stage",
        description="Organizers. Settings left out take the kind's defaults (preliminary and "
        "semifinal keep nations apart, a final lets them meet, every stage avoids rematches), "
        "then the usual ones; the stage goes after the last unless order says where.",
        request=StageWriteSerializer,
        responses={201: StageSerializer, **error_responses(400, 403, 404, 409)},
    )
    @action(detail=True, methods=["post"], url_path="stages", url_name="stages")
    def stages(self, request, slug: str) -> Response:
        tournament = self.get_object()
        require_organizer(request.user, tournament)
        params = StageWriteSerializer(data=request.data, context={"tournament": tournament})
        params.is_valid(raise_exception=True)
        stage = add_stage(request.user, tournament, **params.validated_data)
        data = StageSerializer(counted_stage_for_reading(request, stage.pk)).data
        return Response(data, status=status.HTTP_201_CREATED, headers={"Location": data["url"]})


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
    """Stages: published and closed ones for everyone, every stage for its organizers, who
    change and delete them."""

    lookup_value_regex = ID_REGEX  # other ids fall through to the API's 404

    serializer_class = StageSerializer
    filterset_class = StageFilter

    def get_queryset(self) -> QuerySet[Stage]:
        return counted_stages_visible_to(self.request.user).order_by("tournament__slug", "order")

    def get_object(self) -> Stage:
        return counted_stage_for_reading(self.request, self.kwargs["pk"])

    @extend_schema(
        summary="Change a stage's settings",
        description="Organizers. Send only what changes. Pairing settings (format, "
        "games_per_player, min_group_size, separate_nations, avoid_rematches, "
        "double_round_robin, balance_ratings, allowed_nation_games, formula) change only while "
        "registration is open; kind and order until the draw; the qualification rule until "
        "the qualification is confirmed; the play period until the stage is closed. A change "
        "to a frozen setting answers 409 with the reason and changes nothing.",
        request=StageWriteSerializer,
        responses={200: StageSerializer, **error_responses(400, 403, 404, 409)},
    )
    def partial_update(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = StageWriteSerializer(stage, data=request.data, partial=True)
        params.is_valid(raise_exception=True)
        stage = update_stage(request.user, stage, **params.validated_data)
        return Response(StageSerializer(counted_stage_for_reading(request, stage.pk)).data)

    @extend_schema(
        summary="Delete a stage",
        description="Organizers, while the stage is not drawn: it goes with its entries (the "
        "entrants stay in the tournament) and the stages after it move one place up.",
        request=None,
        responses={
            204: OpenApiResponse(description="Deleted."),
            **error_responses(403, 404, 409),
        },
    )
    def destroy(self, request, pk: int) -> Response:
        delete_stage(request.user, stage_for_action(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


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
        return Response(StageSerializer(counted_stage_for_reading(request, stage.pk)).data)


@extend_schema(
    request=None, responses={200: StageSerializer, **error_responses(403, 404, 409, 422)}
)
class CloseRegistrationView(StageTransitionView):
    """Close registration: freeze the entrant list and record its SHA-256 digest
    (organizers; the stage must be open for registration and have entrants). Refused with
    422 (``draw_impossible``) when its settings cannot be drawn with its entrants: the
    message names the nearest workable settings, ``details[0].suggestions`` lists them."""

    transition = staticmethod(close_registration)


class ReopenRegistrationView(StageTransitionView):
    """Reopen registration of a stage whose registration is closed and not yet drawn
    (organizers)."""

    transition = staticmethod(reopen_registration)


class PublishView(StageTransitionView):
    """Publish the drawn groups: they become public and the draw can no longer change
    (organizers). The standings, the ranking and the verification files are then made in
    the background: follow them at ``/api/stages/{id}/publication/``."""

    transition = staticmethod(publish_draw)


class SwissRoundsSerializer(serializers.Serializer):
    stage = serializers.IntegerField()
    rounds = serializers.IntegerField(help_text="The rounds the stage plays.")
    paired = serializers.IntegerField(help_text="The last round paired (0 before the draw).")
    open_games = serializers.IntegerField(
        help_text="Games of the last round paired still without a result."
    )
    complete = serializers.BooleanField(help_text="Every round is paired.")
    can_pair_next = serializers.BooleanField(
        help_text="The next round can be paired now: the stage is in play, rounds remain and "
        "every game of the current round has a result, or its deadline passed and its "
        "unfinished games went to adjudication."
    )
    failure = serializers.CharField(
        help_text="Why the last request for the next round could not be paired (empty: none)."
    )
    pairing = serializers.IntegerField(
        allow_null=True,
        help_text="The round an organizer asked for that is not paired yet and has no failure "
        "since (null: none): its pairing waits for a worker or runs. A pairing whose worker "
        "was lost is handed out again by the broker (Redis: within 20 minutes); the round "
        "may also be asked for again.",
    )
    pairing_asked_at = serializers.DateTimeField(
        allow_null=True, help_text="When that round was asked for (null: none is waiting)."
    )
    due_at = serializers.DateTimeField(
        allow_null=True,
        help_text="The current round's deadline: its start plus the stage's swiss_round_days "
        "(null: no deadline).",
    )
    deadline_passed = serializers.BooleanField(
        help_text="The current round's deadline passed and was acted on (see at_deadline)."
    )
    at_deadline = serializers.ChoiceField(
        choices=["", *Stage.AtDeadline.values],
        help_text="What was done when the current round's deadline passed: adjudicate (its "
        "unfinished games went to adjudication, each a draw for the next round's pairing only, "
        "and the next round is paired), td (they were left to the TDs: the next round is "
        "paired once they have results), or empty (not passed yet).",
    )
    requested = serializers.IntegerField(
        required=False, help_text="The round this request asked for (POST only)."
    )


class NextRoundRequestSerializer(serializers.Serializer):
    adjudicate_open = serializers.BooleanField(
        required=False,
        default=False,
        help_text="In a stage whose rounds wait for the TD at the deadline (at_deadline td), "
        "once the current round's deadline passed: first send its unfinished games to "
        "adjudication (each a draw for this pairing only, until its result is entered).",
    )


class NextRoundView(APIView):
    """A Swiss stage's rounds (GET) and pairing its next round (POST; organizers).

    POST is refused (409) while a game of the current round has no result (unless the round's
    deadline passed and its unfinished games went to adjudication: ``at_deadline``
    ``adjudicate``), when every round is paired, or before the stage is published. ``due_at``
    is the current round's deadline (null: none) and ``deadline_passed`` says whether it passed
    and was acted on. The round is paired by a background task:
    the answer is 200 when it is paired already (``paired`` is the requested round), else 202;
    follow ``GET`` on the same address until ``paired`` reaches ``requested`` or ``failure``
    says why it could not be paired. Asking twice never pairs two rounds. With
    ``{"adjudicate_open": true}`` — in a stage whose rounds wait for the TD (``td``), once the
    current round's deadline passed — its unfinished games first go to adjudication, in the
    same action."""

    @extend_schema(
        summary="A Swiss stage's rounds",
        responses={200: SwissRoundsSerializer, **error_responses(403, 404, 409)},
    )
    def get(self, request, pk: int) -> Response:
        state = swiss_state(stage_for_action(request, pk))
        return Response(SwissRoundsSerializer(state.as_dict()).data)

    @extend_schema(
        summary="Pair a Swiss stage's next round",
        request=NextRoundRequestSerializer,
        responses={
            200: SwissRoundsSerializer,
            202: SwissRoundsSerializer,
            **error_responses(400, 403, 404, 409, 422),
        },
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = NextRoundRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        requested = start_next_round(
            request.user, stage, adjudicate_open=params.validated_data["adjudicate_open"]
        )
        state = swiss_state(Stage.objects.select_related("tournament").get(pk=stage.pk))
        data = SwissRoundsSerializer({**state.as_dict(), "requested": requested}).data
        if state.paired >= requested:
            return Response(data)
        url = reverse("api-stage-next-round", args=[stage.pk])
        return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": url})


class LateEntrantSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(help_text="Their seat: the start list's number, at the end.")
    pairing_number = serializers.IntegerField(
        help_text="Their pairing number (FIDE's TPN) as the next round is paired: the place "
        "their rating gives them in the initial order of all the players."
    )
    first_round = serializers.IntegerField(
        help_text="The first round they are paired in; the rounds before it count for them as "
        "not paired (0 points)."
    )
    existing = serializers.BooleanField(
        help_text="An entrant of the tournament already (the code of an earlier stage's "
        "entrant), not a new one."
    )


class LateEntrantsView(APIView):
    """Add a late entrant to a Swiss stage (organizers): a published Swiss stage whose group
    is open and whose last round is not paired yet. The player takes the next seat (the
    group's size + 1) and is paired from the next round on by their pairing number; the rounds
    already paired count for them as not paired, 0 points.

    ``code``: left out or empty, a new code is made; the code of an entrant of the tournament
    who is not in this stage enters that entrant (the details sent must be theirs: name and
    nation, and the rating, person and e-mail if sent). 400 lists every bad field; 409 for a
    stage that takes no late entrant now, an entrant already in the stage or a code whose
    entrant's details differ."""

    @extend_schema(
        summary="Add a late entrant to a Swiss stage",
        request=EntrantDetailsSerializer,
        responses={201: LateEntrantSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = EntrantDetailsSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        late = add_late_entrant(request.user, stage, **params.validated_data)
        return Response(late.as_dict(), status=status.HTTP_201_CREATED)


class PublicationProgressView(APIView):
    """Progress of the work a publication queued (organizers): each group's standings
    computed, the stage's ranking stored with every entrant, the verification files stored.
    Poll it until ``finished``. The start-list e-mails go out meanwhile; they are not
    counted here. 409 while the stage is not published."""

    @extend_schema(
        summary="Progress of a stage's publication",
        responses={200: PublicationProgressSerializer, **error_responses(403, 404, 409)},
    )
    def get(self, request, pk: int) -> Response:
        progress = publication_progress(stage_for_action(request, pk))
        if progress is None:
            raise not_published()
        return Response(progress.as_dict())


class DrawView(APIView):
    """Start (or restart, before publishing) the stage's draw as a background job
    (organizers; registration must be closed). Follow the job at ``progress_url``."""

    @extend_schema(
        request=DrawRequestSerializer,
        responses={202: DrawStartedSerializer, **error_responses(400, 403, 404, 409, 422)},
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


class CancelDrawView(APIView):
    """Stop the stage's running draw job (organizers): it is marked failed, nothing of it is
    written, and the draw can be started again."""

    @extend_schema(
        request=None, responses={200: JobProgressSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        job = cancel_draw(request.user, stage_for_action(request, pk))
        return Response(job_progress(job))


class DrawJobProgressView(APIView):
    """Progress of a draw job (organizers of its tournament)."""

    @extend_schema(responses={200: JobProgressSerializer, **error_responses(403, 404)})
    def get(self, request, pk: int) -> Response:
        job = DrawJob.objects.select_related("stage__tournament").filter(pk=pk).first()
        if job is None:
            raise NotFound(_("There is no draw job %(id)s.") % {"id": pk})
        require_organizer(request.user, job.stage.tournament)
        return Response(job_progress(job))


# ---------------------------------------------------------------------------
# The format lab
# ---------------------------------------------------------------------------


def _lab_answer(run: LabRun) -> dict:
    stage = run.stage
    return {
        **lab_progress(run),
        "page_url": reverse("stage-lab-run", args=[stage.tournament.slug, stage.order, run.pk]),
    }


class LabRunsView(APIView):
    """Start a format lab run (organizers, registration open): 2–4 candidate formats, each
    simulated ``tournaments`` times on the stage's entrants with one seed. Follow it at
    ``progress_url``. Bad settings answer 400 listing every problem, and nothing is made."""

    @extend_schema(
        summary="Start a format lab run",
        request=LabRunRequestSerializer,
        responses={202: LabRunSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        data = request.data if isinstance(request.data, dict) else {}
        run = start_lab_run(
            request.user, stage, data.get("candidates"), data.get("tournaments"), data.get("seed")
        )
        run.refresh_from_db()  # without a broker the run is done by now: say so
        progress_url = reverse("api-lab-run", args=[run.pk])
        return Response(
            _lab_answer(run), status=status.HTTP_202_ACCEPTED, headers={"Location": progress_url}
        )


class LabRunView(APIView):
    """A format lab run's progress and, once done, each candidate's measures (organizers)."""

    @extend_schema(
        summary="A format lab run", responses={200: LabRunSerializer, **error_responses(403, 404)}
    )
    def get(self, request, pk: int) -> Response:
        run = LabRun.objects.select_related("stage__tournament").filter(pk=pk).first()
        if run is None:
            raise NotFound(_("There is no format lab run %(id)s.") % {"id": pk})
        require_organizer(request.user, run.stage.tournament)
        return Response(_lab_answer(run))
