"""REST API of groups (with seats, opponents and colours), their games, and "find a player"."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.api import error_responses
from apps.core.converters import ID_REGEX
from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.groups.permissions import NO_CONTACTS, Contacts, can_see_td_contact, contacts_for
from apps.stages.permissions import public_stages_filter, visible_stages_filter

from .models import Group, Seat
from .serializers import (
    GameSerializer,
    GroupDetailSerializer,
    GroupSerializer,
    PlayerQuerySerializer,
    PlayerSerializer,
    contact_of,
)
from .services import Opponent, group_lines, lines_for_seats, player_search


def _opponent(o: Opponent) -> dict:
    """``colour`` is the colour the seat's own player has in that game."""
    e = o.entrant
    return {
        "game": o.game,
        "seat": o.seat,
        "code": e.code,
        "name": e.name,
        "nation": e.nation,
        "colour": o.colour_name,
    }


def _entrant(e: Entrant) -> dict:
    return {"code": e.code, "name": e.name, "nation": e.nation, "rating": e.rating}


def group_seats(group: Group, contacts: Contacts = NO_CONTACTS) -> list[dict]:
    """The group's seats with their entrants and opponents (two queries); the entrants'
    addresses only where ``contacts`` shows them."""
    return [
        {
            "seat": line.seat.number,
            "entrant": _entrant(line.seat.entrant),
            "contact": contact_of(line.seat.entrant, contacts),
            "opponents": [_opponent(o) for o in line.opponents],
        }
        for line in group_lines(group)
    ]


def players_with_opponents(seats: list[Seat]) -> list[dict]:
    """Rows of "find a player" for the given seats (three queries, whatever their number)."""
    rows = []
    for line in lines_for_seats(seats):
        s = line.seat
        stage, group = s.group.stage, s.group
        rows.append(
            {
                **_entrant(s.entrant),
                "tournament": stage.tournament.slug,
                "stage": {
                    "id": stage.pk,
                    "kind": stage.kind,
                    "order": stage.order,
                    "url": reverse("api-stage-detail", args=[stage.pk]),
                },
                "group": {
                    "id": group.pk,
                    "number": group.number,
                    "url": reverse("api-group-detail", args=[group.pk]),
                },
                "seat": s.number,
                "opponents": [_opponent(o) for o in line.opponents],
            }
        )
    return rows


# ---------------------------------------------------------------------------
# Serializers
# ---------------------------------------------------------------------------


class GroupFilter(django_filters.FilterSet):
    stage = django_filters.NumberFilter(field_name="stage", label="The stage's id")

    class Meta:
        model = Group
        fields = ["stage"]


@extend_schema_view(
    list=extend_schema(responses={200: GroupSerializer(many=True), **error_responses(400)}),
    retrieve=extend_schema(responses={200: GroupDetailSerializer, **error_responses(404)}),
)
class GroupViewSet(viewsets.ReadOnlyModelViewSet):
    """Groups of the stages you may see: public once the draw is published."""

    lookup_value_regex = ID_REGEX  # other ids fall through to the API's 404

    queryset = Group.objects.none()  # for introspection; get_queryset picks what one may see
    filterset_class = GroupFilter

    def get_queryset(self) -> QuerySet[Group]:
        return (
            Group.objects.filter(visible_stages_filter(self.request.user, "stage__"))
            .select_related("td__profile")
            .order_by("stage_id", "number")
        )

    def get_serializer_class(self) -> type[GroupSerializer]:
        return GroupDetailSerializer if self.action == "retrieve" else GroupSerializer

    def get_object(self) -> Group:
        group = self.get_queryset().filter(pk=self.kwargs["pk"]).first()
        if group is None:
            raise NotFound(
                _("There is no group %(id)s, or its stage is not published yet.")
                % {"id": self.kwargs["pk"]}
            )
        return group

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        """A group with its seats: each entrant and their opponents with colours."""
        group = self.get_object()
        td = group.td if group.td is not None and can_see_td_contact(request.user, group) else None
        detail: Any = group  # with the two attributes the detail serializer reads
        detail.seat_list = group_seats(group, contacts_for(request.user, group))
        detail.td_contact = (td.email or None) if td is not None else None
        return Response(GroupDetailSerializer(group).data)

    @extend_schema(responses={200: GameSerializer(many=True), **error_responses(404)})
    @action(detail=True, url_path="games", url_name="games", filter_backends=[])
    def games(self, request: Request, pk: str | None = None) -> Response:
        """The group's games in number order, with results."""
        group = self.get_object()
        games = Game.objects.filter(group=group).select_related("white", "black")
        page = self.paginate_queryset(games.order_by("number"))
        context = {"contacts": contacts_for(request.user, group)}
        return self.get_paginated_response(GameSerializer(page, many=True, context=context).data)


class PlayerSearchView(generics.GenericAPIView):
    """Find a player in the published stages: their group, seat, and opponents with colours."""

    queryset = Seat.objects.none()  # for introspection
    serializer_class = PlayerSerializer

    @extend_schema(
        parameters=[PlayerQuerySerializer],
        responses={200: PlayerSerializer(many=True), **error_responses(400)},
    )
    def get(self, request: Request) -> Response:
        params = PlayerQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        q = params.validated_data["q"].strip()
        seats = Seat.objects.filter(public_stages_filter("stage__"), player_search(q))
        if "tournament" in params.validated_data:
            seats = seats.filter(stage__tournament__slug=params.validated_data["tournament"])
        seats = seats.select_related("entrant", "group__stage__tournament").order_by(
            "entrant__name", "entrant__code", "stage__order"
        )
        page = self.paginate_queryset(seats)
        assert page is not None  # every list of the API is paginated
        return self.get_paginated_response(
            PlayerSerializer(players_with_opponents(page), many=True).data
        )
