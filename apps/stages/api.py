"""REST API of tournaments, stages and draw jobs."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.permissions import require_organizer

from .draw import job_progress
from .models import DrawJob

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


class DrawJobProgressView(APIView):
    """Progress of a draw job (organizers of its tournament)."""

    @extend_schema(responses=JobProgressSerializer)
    def get(self, request, pk: int) -> Response:
        job = get_object_or_404(DrawJob.objects.select_related("stage__tournament"), pk=pk)
        require_organizer(request.user, job.stage.tournament)
        return Response(job_progress(job))
