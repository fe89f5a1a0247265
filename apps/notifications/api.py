"""REST API of a user's e-mail preferences (``/api/me/notifications/``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses

from .models import OPTIONAL_KINDS, Preferences
from .services import preferences_of, update_preferences


class PreferencesSerializer(serializers.ModelSerializer):
    class Meta:
        model = Preferences
        fields = [str(kind) for kind in OPTIONAL_KINDS]


class PreferencesView(APIView):
    """Which e-mails you receive: ``start_list`` (when a draw is published), ``result``
    (a result of yours entered or corrected, withdrawals), ``td_digest`` (a daily digest of
    the groups you direct), ``move`` (each move of your opponents in games played here, at
    once) and ``move_digest`` (those moves in one e-mail a day; off unless turned on). PATCH
    changes some, PUT all of them."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: PreferencesSerializer, **error_responses(403)})
    def get(self, request) -> Response:
        return Response(PreferencesSerializer(preferences_of(request.user)).data)

    def _save(self, request, partial: bool) -> Response:
        params = PreferencesSerializer(data=request.data, partial=partial)
        params.is_valid(raise_exception=True)
        prefs = update_preferences(request.user, **params.validated_data)
        return Response(PreferencesSerializer(prefs).data)

    @extend_schema(
        request=PreferencesSerializer,
        responses={200: PreferencesSerializer, **error_responses(400, 403)},
    )
    def put(self, request) -> Response:
        return self._save(request, partial=False)

    @extend_schema(
        request=PreferencesSerializer,
        responses={200: PreferencesSerializer, **error_responses(400, 403)},
    )
    def patch(self, request) -> Response:
        return self._save(request, partial=True)
