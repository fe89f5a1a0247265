"""REST API of registration by players: a player registers for a stage and withdraws;
the stage's requests (organizers: all; a player: their own); organizers approve or reject
many at once. Each view parses its input, calls one action (``registrations.py``) and
answers."""

from __future__ import annotations

from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses
from apps.core.permissions import can_view_stage, require_signed_in
from apps.stages.lookups import stage_for_action
from apps.stages.models import Stage

from . import registration_rules as rules
from . import registrations
from .models import Registration
from .registrations import MOST_DECIDED, REASON_MAX_LENGTH, Decision

STAGE_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The stage's id.")
REGISTRATION_ID = OpenApiParameter(
    "id", int, OpenApiParameter.PATH, description="The registration's id."
)


class RegistrationRequestSerializer(serializers.Serializer):
    """A player's request (checked by the entrant rules and the stage's eligibility rules)."""

    name = serializers.CharField(trim_whitespace=False, help_text="The player's name.")
    federation = serializers.CharField(
        trim_whitespace=False, help_text="The player's FIDE federation code, e.g. ITA."
    )
    rating_list_id = serializers.CharField(
        trim_whitespace=False,
        required=False,
        default="",
        allow_blank=True,
        help_text="The player's ID on the stage's rating list (becomes the entrant's person).",
    )
    rating = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            "The player's rating on the stage's rating list; null: unrated. Used only when "
            "the office holds no such list: otherwise the list's rating for rating_list_id "
            "is checked (not on the list: unrated)."
        ),
    )
    email = serializers.CharField(
        trim_whitespace=False, help_text="The contact address the answers are sent to."
    )


class CheckSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(choices=rules.Rule.choices)
    passed = serializers.BooleanField()
    message = serializers.CharField()


class RegistrationSerializer(serializers.ModelSerializer):
    """A request to enter a stage, its state and its eligibility checks as they stand."""

    stage = serializers.IntegerField(source="stage_id", help_text="The stage's id.")
    status = serializers.ChoiceField(
        choices=Registration.Status.choices,
        help_text="pending (waiting for approval), reserve, approved, rejected or withdrawn.",
    )
    reserve_place = serializers.SerializerMethodField(
        help_text="Its place on the reserve list (1: next to move up); null unless reserve."
    )
    entrant = serializers.SerializerMethodField(
        help_text="The code of the entrant an approval made; null before."
    )
    checks = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField(help_text="POST …/withdraw/ there to withdraw it.")

    class Meta:
        model = Registration
        fields = [
            "id",
            "stage",
            "name",
            "federation",
            "rating_list_id",
            "rating",
            "email",
            "status",
            "position",
            "reserve_place",
            "reason",
            "entrant",
            "checks",
            "created_at",
            "updated_at",
            "decided_at",
            "url",
        ]

    def get_reserve_place(self, obj: Registration) -> int | None:
        return registrations.reserve_place(obj)

    def get_entrant(self, obj: Registration) -> str | None:
        return obj.entrant.code if obj.entrant else None

    @extend_schema_field(CheckSerializer(many=True))
    def get_checks(self, obj: Registration) -> list[dict]:
        return [
            {"rule": str(c.rule), "passed": c.passed, "message": c.message}
            for c in rules.eligibility(
                obj.stage,
                federation=obj.federation,
                rating=obj.rating,
                rating_list_id=obj.rating_list_id,
            )
        ]

    def get_url(self, obj: Registration) -> str:
        return reverse("api-registration-withdraw", args=[obj.pk])


class DecisionRequestSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=1,
        max_length=MOST_DECIDED,
        help_text=f"The requests' ids (1–{MOST_DECIDED}); all are decided or none.",
    )
    decision = serializers.ChoiceField(
        choices=[(Decision.APPROVE, "approve"), (Decision.REJECT, "reject")],
        help_text="approve: pending requests become entrants; reject: pending or reserve ones.",
    )
    reason = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        max_length=REASON_MAX_LENGTH,
        help_text="Why (one line; required to reject); the players read it.",
    )


def stage_for_registration(request, pk: int) -> Stage:
    """A stage the user may register for or see, or 404."""
    stage = Stage.objects.select_related("tournament").filter(pk=pk).first()
    if stage is None or not (stage.open_registration or can_view_stage(request.user, stage)):
        raise NotFound(
            _("There is no stage %(id)s that takes registrations from players.") % {"id": pk}
        )
    return stage


@extend_schema_view(
    get=extend_schema(
        parameters=[STAGE_ID],
        responses={200: RegistrationSerializer(many=True), **error_responses(403, 404)},
    ),
    post=extend_schema(
        parameters=[STAGE_ID],
        request=RegistrationRequestSerializer,
        responses={201: RegistrationSerializer, **error_responses(400, 403, 404, 409, 422)},
    ),
)
class StageRegistrationsView(generics.ListAPIView):
    """A stage's registration requests in order of registration: every one for its
    organizers, one's own for a player (signed in). POST registers the signed-in player: 201
    with the request, pending or, when the field is full, reserve; 409 when the stage takes
    no registrations now or the player has an active request; 422 (``not_eligible``) with
    every rule the request breaks in ``details`` as ``{rule, message}``."""

    queryset = Registration.objects.none()  # for introspection; get_queryset picks the stage's
    serializer_class = RegistrationSerializer

    def get_queryset(self) -> QuerySet[Registration]:
        require_signed_in(self.request.user)
        stage = stage_for_registration(self.request, self.kwargs["pk"])
        return registrations.registrations_seen_by(self.request.user, stage)

    def post(self, request, pk: int) -> Response:
        require_signed_in(request.user)
        stage = stage_for_registration(request, pk)
        params = RegistrationRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        made = registrations.register(stage, actor=request.user, **params.validated_data)
        return Response(RegistrationSerializer(made).data, status=status.HTTP_201_CREATED)


class RegistrationDecideView(APIView):
    """Approve or reject many requests of the stage at once (organizers), all or none: 400
    for bad input (a rejection without a reason), 404 for ids not of this stage, 409 when a
    request is not in a state to be so decided or registration is closed."""

    @extend_schema(
        parameters=[STAGE_ID],
        request=DecisionRequestSerializer,
        responses={200: RegistrationSerializer(many=True), **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = DecisionRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        done = registrations.decide(
            stage, data["ids"], data["decision"], data["reason"], actor=request.user
        )
        for registration in done:
            registration.refresh_from_db()
        return Response(RegistrationSerializer(done, many=True).data)


class RegistrationWithdrawView(APIView):
    """The player withdraws their request until registration closes (an approved one's entry
    leaves the stage); the first on the reserve list moves up. 404 for another's request,
    409 when there is nothing to withdraw or registration is closed."""

    @extend_schema(
        parameters=[REGISTRATION_ID],
        request=None,
        responses={200: RegistrationSerializer, **error_responses(403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        user = require_signed_in(request.user)
        registration = Registration.objects.filter(pk=pk, user=user).first()
        if registration is None:
            raise NotFound(_("You have no registration %(id)s.") % {"id": pk})
        done = registrations.withdraw(registration, actor=user)
        return Response(RegistrationSerializer(done).data)
