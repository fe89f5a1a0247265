"""The games as PGN files (``apps.results.pgn`` writes them): one game, a group's games, a
stage's games. Who may read them is who may read the games: everyone once the stage is
published, before that its tournament's organizers (others get 404, as for every read of an
unpublished stage).

The group's and the stage's files are streamed: the games are read a chunk at a time while
the answer is sent, so a stage of 500,000 games never sits in memory. The views are DRF
views only for the errors (JSON, as everywhere in the API), the authentication and the
schema; their answer is PGN whatever the Accept header says.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.views import APIView

from apps.core.api import error_responses
from apps.groups.lookups import group_for_reading
from apps.stages.lookups import stage_for_reading

from . import pgn
from .api import game_for

PGN_RESPONSES: dict[Any, Any] = {
    (200, pgn.MEDIA_TYPE): OpenApiTypes.STR,
    **error_responses(404),
}


def _id(what: str) -> OpenApiParameter:
    return OpenApiParameter("id", int, OpenApiParameter.PATH, description=f"The {what}'s id.")


def _attachment(response: HttpResponse | StreamingHttpResponse, filename: str):
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class _PgnView(APIView):
    def perform_content_negotiation(self, request, force: bool = False):
        # The answer is PGN whatever the Accept header says; errors are rendered as JSON.
        return super().perform_content_negotiation(request, force=True)


class GamePgnView(_PgnView):
    """One game as a PGN file: the Seven Tag Roster, the players' codes, ratings and nations,
    the stage and group, and the moves when the game has a score."""

    @extend_schema(
        operation_id="games_pgn_retrieve", parameters=[_id("game")], responses=PGN_RESPONSES
    )
    def get(self, request, pk: int) -> HttpResponse:
        game = game_for(request, pk)
        stage = game.group.stage
        text = pgn.game_pgn(game, pgn.Event.of(stage), game.group.number)
        return _attachment(
            HttpResponse(text, content_type=pgn.CONTENT_TYPE), pgn.game_file_name(game)
        )


class GroupGamesPgnView(_PgnView):
    """The group's games as one PGN file, by game number (streamed)."""

    @extend_schema(
        operation_id="groups_games_pgn_retrieve", parameters=[_id("group")], responses=PGN_RESPONSES
    )
    def get(self, request, pk: int) -> StreamingHttpResponse:
        group = group_for_reading(request, pk)
        games = pgn.games_pgn(pgn.group_games(group), pgn.Event.of(group.stage))
        response = StreamingHttpResponse(games, content_type=pgn.CONTENT_TYPE)
        return _attachment(response, pgn.group_file_name(group))


class StageGamesPgnView(_PgnView):
    """The stage's games as one PGN file, by group, then game number (streamed)."""

    @extend_schema(
        operation_id="stages_games_pgn_retrieve", parameters=[_id("stage")], responses=PGN_RESPONSES
    )
    def get(self, request, pk: int) -> StreamingHttpResponse:
        stage = stage_for_reading(request, pk)
        games = pgn.games_pgn(pgn.stage_games(stage), pgn.Event.of(stage))
        response = StreamingHttpResponse(games, content_type=pgn.CONTENT_TYPE)
        return _attachment(response, pgn.stage_file_name(stage))
