"""REST API of players' profiles: ``GET /api/players/{id}/``."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import error_responses
from apps.entrants.models import Person

from .profiles import player_profile
from .serializers import ProfileSerializer, profile_data


class PlayerProfileView(APIView):
    """A player's profile: their events (stage, group, place, points), games, each group's
    rating report line and title-norm figures (unofficial); their addresses only for the
    player, the organizers of their events and staff. A player who plays in no stage you
    may see yet is not found (404), unless you are one of those."""

    @extend_schema(responses={200: ProfileSerializer, **error_responses(404)})
    def get(self, request: Request, person_id: int) -> Response:
        person = Person.objects.select_related("user").filter(pk=person_id).first()
        if person is None:
            raise NotFound(_("There is no player %(id)s.") % {"id": person_id})
        if person.merged_into_id is not None:
            person = Person.objects.select_related("user").get(pk=person.merged_into_id)
        profile = player_profile(person, request.user)
        if not profile.visible:
            raise NotFound(_("There is no player %(id)s.") % {"id": person_id})
        return Response(profile_data(profile))
