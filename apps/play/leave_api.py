"""REST API of a player's leave (``/api/me/leave/``): what the "Leave" section of "My games"
shows and does, for a client of the player's own."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses

from .leave import LeaveOverview, cancel_leave, leave_overview, take_leave
from .models import Leave


class LeaveSerializer(serializers.ModelSerializer):
    days = serializers.SerializerMethodField()
    cancellable = serializers.SerializerMethodField()

    class Meta:
        model = Leave
        fields = ["id", "starts_on", "ends_on", "days", "special", "cancellable"]

    def get_days(self, leave: Leave) -> int:
        return (leave.ends_on - leave.starts_on).days + 1

    def get_cancellable(self, leave: Leave) -> bool:
        overview: LeaveOverview | None = self.context.get("overview")
        return overview.cancellable(leave) if overview else False


class LeaveYearSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    days = serializers.IntegerField(help_text="the leave days of the year")
    used = serializers.IntegerField(help_text="days taken or planned in the year")
    left = serializers.IntegerField()
    special_days = serializers.IntegerField(help_text="the event's special leave of the year")
    special_used = serializers.IntegerField()
    special_left = serializers.IntegerField()


class LeaveOverviewSerializer(serializers.Serializer):
    years = LeaveYearSerializer(many=True, help_text="this calendar year and the next")
    leave = serializers.SerializerMethodField(help_text="leave taken, not cancelled, latest first")

    @extend_schema(responses=LeaveSerializer(many=True))
    def get_leave(self, overview: LeaveOverview) -> list:
        return list(
            LeaveSerializer(overview.leaves, many=True, context={"overview": overview}).data
        )


class TakeLeaveSerializer(serializers.Serializer):
    starts_on = serializers.DateField(help_text="the first day of leave (UTC), after today")
    ends_on = serializers.DateField(help_text="the last day of leave, included")
    special = serializers.BooleanField(
        default=False, help_text="taken from the event's special leave"
    )


class MyLeaveView(APIView):
    """Your leave: whole calendar days (UTC) on which no clock runs in your games played
    here. GET: this year's and next year's days used and left, and your leave. POST: take a
    leave (announced before its first day; refused with every reason, 400, when it overlaps
    a leave or goes over a year's days); your opponents are told by e-mail."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: LeaveOverviewSerializer, **error_responses(403)})
    def get(self, request) -> Response:
        return Response(LeaveOverviewSerializer(leave_overview(request.user.pk)).data)

    @extend_schema(
        request=TakeLeaveSerializer,
        responses={201: LeaveSerializer, **error_responses(400, 403)},
    )
    def post(self, request) -> Response:
        params = TakeLeaveSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        leave = take_leave(request.user, **params.validated_data)
        overview = leave_overview(request.user.pk)
        return Response(
            LeaveSerializer(leave, context={"overview": overview}).data,
            status=status.HTTP_201_CREATED,
        )


class MyLeaveItemView(APIView):
    """Cancel a leave of yours that has not begun (204); one begun is 409."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={204: None, **error_responses(403, 404, 409)})
    def delete(self, request, pk: int) -> Response:
        cancel_leave(request.user, pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
