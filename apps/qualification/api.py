"""API for the end of a stage: closing groups and stages, and qualification.

The qualification preview is public once the stage is; every write is an organizer's (closing
a group also its TD's) and calls the same action as the pages.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses
from apps.core.permissions import require_organizer
from apps.groups.lookups import counted_stage_for_reading, group_for_reading
from apps.results import closing
from apps.scoring import qualification as q
from apps.stages.lookups import stage_for_action
from apps.stages.serializers import StageSerializer

from . import services

# ---------------------------------------------------------------------------
# Serializers
# ---------------------------------------------------------------------------


class DecisionSerializer(serializers.Serializer):
    status = serializers.CharField()
    rank = serializers.IntegerField()
    group = serializers.IntegerField()
    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)
    points = serializers.CharField(help_text="exact decimal, e.g. 7.5")
    figures = serializers.DictField(child=serializers.CharField())
    reason = serializers.CharField()
    by_lot = serializers.BooleanField()


class CutSerializer(serializers.Serializer):
    group = serializers.IntegerField(allow_null=True)
    places = serializers.IntegerField()
    lot = serializers.BooleanField()
    entrants = DecisionSerializer(many=True)


class AdjustmentSerializer(serializers.Serializer):
    code = serializers.CharField(source="entrant.code")
    name = serializers.CharField(source="entrant.name")
    nation = serializers.CharField(source="entrant.nation")
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class PreviewSerializer(serializers.Serializer):
    stage = serializers.IntegerField()
    next_stage = serializers.IntegerField(allow_null=True)
    rule = serializers.CharField()
    lot_seed = serializers.CharField()
    lot_used = serializers.BooleanField()
    provisional = serializers.BooleanField()
    confirmed = serializers.BooleanField()
    blockers = serializers.ListField(child=serializers.CharField())
    draw_note = serializers.CharField(
        allow_null=True,
        help_text="What the next stage's draw makes of this many entrants when it is not what "
        "its smallest group asks for (fewer, larger groups); null otherwise. When the next "
        "stage cannot be drawn at all, the sentence is among the blockers.",
    )
    qualifiers = DecisionSerializer(many=True)
    cuts = CutSerializer(many=True)
    reserves = DecisionSerializer(many=True)
    prequalified = AdjustmentSerializer(many=True)
    declined = AdjustmentSerializer(many=True)


def _decision(d: q.Decision, entrants: dict) -> dict:
    e = entrants[d.candidate.id]
    points = d.candidate.points
    return {
        "status": d.status.value,
        "rank": d.rank,
        "group": d.candidate.group,
        "code": e.code,
        "name": e.name,
        "nation": e.nation,
        "rating": e.rating,
        "points": str(Decimal(points.numerator) / points.denominator),
        "figures": dict(d.candidate.figures),
        "reason": d.reason,
        "by_lot": d.by_lot,
    }


def preview_data(preview: services.Preview) -> dict:
    outcome, entrants = preview.outcome, preview.entrants
    return {
        "stage": preview.stage.pk,
        "next_stage": preview.next_stage.pk if preview.next_stage else None,
        "rule": preview.rule,
        "lot_seed": preview.seed,
        "lot_used": bool(outcome and outcome.lot_used),
        "provisional": preview.provisional,
        "confirmed": preview.confirmed,
        "blockers": preview.blockers,
        "draw_note": preview.draw_note or None,
        "qualifiers": [_decision(d, entrants) for d in (outcome.qualifiers if outcome else [])],
        "cuts": [
            {
                "group": c.group,
                "places": c.places,
                "lot": c.lot,
                "entrants": [_decision(d, entrants) for d in c.tied],
            }
            for c in (outcome.cuts if outcome else [])
        ],
        "reserves": [_decision(d, entrants) for d in (outcome.reserves if outcome else [])],
        "prequalified": AdjustmentSerializer(preview.prequalified, many=True).data,
        "declined": AdjustmentSerializer(preview.declined, many=True).data,
    }


class RuleSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(
        choices=["", *[c.value for c in q.Rule]], allow_blank=True, help_text="'' for none"
    )
    value = serializers.DecimalField(max_digits=7, decimal_places=3, required=False)
    relative = serializers.BooleanField(default=False)
    lot_seed = serializers.CharField(max_length=200, required=False, allow_blank=True)

    def validate(self, data: dict) -> dict:
        if data["rule"] and data.get("value") is None:
            raise serializers.ValidationError({"value": _("Give the rule's value.")})
        return data


class PrequalifiedSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=32)
    reason = serializers.CharField(max_length=200)
    name = serializers.CharField(max_length=200, required=False, default="")
    nation = serializers.CharField(max_length=3, required=False, default="")
    rating = serializers.IntegerField(min_value=0, max_value=4000, required=False)
    # No default: "" is no e-mail address, so the schema may not offer it as one (its format
    # is "email"); a blank or missing address means none (the service's default).
    email = serializers.EmailField(required=False, allow_blank=True)


class DeclineSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=32)
    reason = serializers.CharField(max_length=200)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200)


class GroupClosingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    closed_at = serializers.DateTimeField(allow_null=True)


class AdjudicationSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="games sent to adjudication")


# ---------------------------------------------------------------------------
# Qualification
# ---------------------------------------------------------------------------


class QualificationView(APIView):
    """The stage's qualification list: qualifiers with the reason for each, the entrants at
    every cut with their tie-breaks (and whether a seeded lot decided), the reserves, the
    pre-qualified entrants and those who declined. Provisional while the stage is in play."""

    @extend_schema(responses={200: PreviewSerializer, **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        stage = counted_stage_for_reading(request, pk)
        return Response(preview_data(services.preview(stage)))


class QualificationRuleView(APIView):
    """Set the stage's qualification rule and lot seed (organizers, before confirming)."""

    @extend_schema(
        request=RuleSerializer, responses={200: PreviewSerializer, **error_responses(400, 403)}
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = RuleSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        stage = services.set_rule(
            request.user,
            stage,
            rule=data["rule"],
            value=data.get("value"),
            relative=data["relative"],
            seed=data.get("lot_seed", ""),
        )
        return Response(preview_data(services.preview(stage)))


class PrequalifiedView(APIView):
    """Add a pre-qualified entrant to the next stage, with the reason (organizers). An
    unknown code registers the entrant from the name, nation and rating given."""

    @extend_schema(
        request=PrequalifiedSerializer,
        responses={201: AdjustmentSerializer, **error_responses(400, 403, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = PrequalifiedSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        adjustment = services.add_prequalified(request.user, stage, **params.validated_data)
        return Response(AdjustmentSerializer(adjustment).data, status=status.HTTP_201_CREATED)


class DeclineView(APIView):
    """Record that a qualifier declines; the next reserve takes the place (organizers)."""

    @extend_schema(
        request=DeclineSerializer,
        responses={201: AdjustmentSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        params = DeclineSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        adjustment = services.decline(request.user, stage, **params.validated_data)
        return Response(AdjustmentSerializer(adjustment).data, status=status.HTTP_201_CREATED)


class ConfirmView(APIView):
    """Confirm the qualifiers: the next stage gets them and the pre-qualified entrants as its
    entrants and is ready to draw (organizers; the stage must be closed). Answers with the
    next stage. Refused with 422 (``draw_impossible``) when the next stage cannot be drawn
    with that many entrants: the message names the nearest workable settings."""

    @extend_schema(
        request=None, responses={200: StageSerializer, **error_responses(403, 404, 409, 422)}
    )
    def post(self, request, pk: int) -> Response:
        following = services.confirm(request.user, stage_for_action(request, pk))
        return Response(StageSerializer(counted_stage_for_reading(request, following.pk)).data)


# ---------------------------------------------------------------------------
# Closing
# ---------------------------------------------------------------------------


class CloseStageView(APIView):
    """Close a stage in play once every game has a result; its groups still open close with
    it (organizers). Refused with the groups still playing listed in ``details``."""

    @extend_schema(request=None, responses={200: StageSerializer, **error_responses(403, 404, 409)})
    def post(self, request, pk: int) -> Response:
        stage = closing.close_stage(request.user, stage_for_action(request, pk))
        return Response(StageSerializer(counted_stage_for_reading(request, stage.pk)).data)


class AdjudicationView(APIView):
    """Send every game still without a result to adjudication (organizers)."""

    @extend_schema(
        request=None, responses={200: AdjudicationSerializer, **error_responses(400, 403, 409)}
    )
    def post(self, request, pk: int) -> Response:
        count = closing.send_to_adjudication(request.user, stage_for_action(request, pk))
        return Response({"games": count})


class CloseGroupView(APIView):
    """Close a group whose games all have a result (its TD or an organizer). Refused with
    the games still open listed in ``details``."""

    @extend_schema(
        request=None, responses={200: GroupClosingSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        group = closing.close_group(request.user, group_for_reading(request, pk))
        return Response(GroupClosingSerializer(group).data)


class ReopenGroupView(APIView):
    """Reopen a closed group for a correction, with the reason (organizers)."""

    @extend_schema(
        request=ReasonSerializer,
        responses={200: GroupClosingSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        group = group_for_reading(request, pk)
        require_organizer(request.user, group.stage.tournament)  # 403 before a 400 on the body
        params = ReasonSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        group = closing.reopen_group(request.user, group, params.validated_data["reason"])
        return Response(GroupClosingSerializer(group).data)
