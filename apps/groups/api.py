"""REST API of groups (with seats, opponents and colours), their games, and "find a player"."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.api import error_responses
from apps.core.permissions import (
    NO_CONTACTS,
    Contacts,
    can_see_td_contact,
    contacts_for,
    public_stages_filter,
    visible_stages_filter,
)
from apps.entrants.models import Entrant
from apps.results.models import Game

from .models import Group, Seat
from .services import Opponent, group_lines, lines_for_seats


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


def _contact(e: Entrant, contacts: Contacts) -> str | None:
    return (e.email or None) if contacts.shows(e.pk) else None


def group_seats(group: Group, contacts: Contacts = NO_CONTACTS) -> list[dict]:
    """The group's seats with their entrants and opponents (two queries); the entrants'
    addresses only where ``contacts`` shows them."""
    return [
        {
            "seat": line.seat.number,
            "entrant": _entrant(line.seat.entrant),
            "contact": _contact(line.seat.entrant, contacts),
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


class PublicEntrantSerializer(serializers.Serializer):
    """An entrant as the public sees it (never an e-mail address)."""

    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)


class OpponentSerializer(serializers.Serializer):
    game = serializers.IntegerField(help_text="The game's number in the group.")
    seat = serializers.IntegerField(help_text="The opponent's seat.")
    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    colour = serializers.ChoiceField(
        choices=["white", "black"], help_text="The colour this seat's player has in the game."
    )


CONTACT_HELP = (
    "The entrant's e-mail address: shown to the group's TD, the organizers and the entrant's "
    "own opponents; null for everyone else (and when unknown)."
)


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    entrant = PublicEntrantSerializer()
    contact = serializers.EmailField(allow_null=True, help_text=CONTACT_HELP)
    opponents = OpponentSerializer(many=True)


class ConflictSerializer(serializers.Serializer):
    white = serializers.CharField(help_text="Entrant code.")
    black = serializers.CharField(help_text="Entrant code.")
    reason = serializers.CharField(help_text='"same nation", "same person" or "met before".')


class DirectorSerializer(serializers.Serializer):
    """The group's tournament director (name only: no e-mail address in public answers)."""

    id = serializers.IntegerField()
    name = serializers.SerializerMethodField()

    def get_name(self, user) -> str:
        return user.get_full_name() or user.get_username()


class GroupSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    games_url = serializers.SerializerMethodField()
    formula = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The Silli formula d1.d2…dk; empty for a round robin.",
    )
    formula_text = serializers.CharField(read_only=True)
    conflicts = ConflictSerializer(
        many=True, help_text="Games between entrants who should not meet (ideally none)."
    )
    nation_mix = serializers.ListField(
        child=serializers.ListField(), help_text="[[nation, count], …], the largest first."
    )
    td = DirectorSerializer(allow_null=True, help_text="The group's tournament director.")

    class Meta:
        model = Group
        fields = [
            "id",
            "url",
            "stage",
            "number",
            "size",
            "formula",
            "formula_text",
            "rule",
            "principles_hold",
            "conflicts",
            "nation_mix",
            "td",
            "games_url",
        ]

    def get_url(self, group: Group) -> str:
        return reverse("api-group-detail", args=[group.pk])

    def get_games_url(self, group: Group) -> str:
        return reverse("api-group-games", args=[group.pk])


class GroupDetailSerializer(GroupSerializer):
    seats = SeatSerializer(many=True, source="seat_list")
    td_contact = serializers.EmailField(
        allow_null=True,
        help_text="The TD's e-mail address: shown to the group's players, the TD and the "
        "organizers; null for everyone else.",
    )

    class Meta(GroupSerializer.Meta):
        fields = [*GroupSerializer.Meta.fields, "td_contact", "seats"]


class GameSerializer(serializers.ModelSerializer):
    white = PublicEntrantSerializer()
    black = PublicEntrantSerializer()
    white_contact = serializers.SerializerMethodField(help_text=CONTACT_HELP)
    black_contact = serializers.SerializerMethodField(help_text=CONTACT_HELP)

    class Meta:
        model = Game
        fields = [
            "number",
            "round",
            "white",
            "black",
            "white_contact",
            "black_contact",
            "result",
            "adjudicated",
            "version",
        ]

    def get_white_contact(self, game: Game) -> str | None:
        return _contact(game.white, self.context.get("contacts", NO_CONTACTS))

    def get_black_contact(self, game: Game) -> str | None:
        return _contact(game.black, self.context.get("contacts", NO_CONTACTS))


class PlayerQuerySerializer(serializers.Serializer):
    q = serializers.CharField(
        min_length=2, help_text="Part of a name (at least two letters) or a whole entrant code."
    )
    tournament = serializers.SlugField(required=False, help_text="The tournament's slug.")


class PlayerStageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    order = serializers.IntegerField()
    url = serializers.CharField()


class PlayerGroupSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    url = serializers.CharField()


class PlayerSerializer(PublicEntrantSerializer):
    tournament = serializers.CharField()
    stage = PlayerStageSerializer()
    group = PlayerGroupSerializer()
    seat = serializers.IntegerField()
    opponents = OpponentSerializer(many=True)


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


class GroupFilter(django_filters.FilterSet):
    stage = django_filters.NumberFilter(field_name="stage", label="The stage's id")

    class Meta:
        model = Group
        fields = ["stage"]


def group_for_reading(request, pk: int) -> Group:
    """A group of a stage the user may see, or 404 (unpublished stages do not exist for the
    public)."""
    group = (
        Group.objects.filter(visible_stages_filter(request.user, "stage__"), pk=pk)
        .select_related("stage__tournament")
        .first()
    )
    if group is None:
        raise NotFound(
            _("There is no group %(id)s, or its stage is not published yet.") % {"id": pk}
        )
    return group


@extend_schema_view(
    list=extend_schema(responses={200: GroupSerializer(many=True), **error_responses(400)}),
    retrieve=extend_schema(responses={200: GroupDetailSerializer, **error_responses(404)}),
)
class GroupViewSet(viewsets.ReadOnlyModelViewSet):
    """Groups of the stages you may see: public once the draw is published."""

    queryset = Group.objects.none()  # for introspection; get_queryset picks what one may see
    filterset_class = GroupFilter

    def get_queryset(self) -> QuerySet[Group]:
        return (
            Group.objects.filter(visible_stages_filter(self.request.user, "stage__"))
            .select_related("td")
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
        group.seat_list = group_seats(group, contacts_for(request.user, group))
        show_td = group.td is not None and can_see_td_contact(request.user, group)
        group.td_contact = (group.td.email or None) if show_td else None
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
        seats = Seat.objects.filter(
            public_stages_filter("stage__"),
            Q(entrant__name__icontains=q) | Q(entrant__code__iexact=q),
        )
        if "tournament" in params.validated_data:
            seats = seats.filter(stage__tournament__slug=params.validated_data["tournament"])
        seats = seats.select_related("entrant", "group__stage__tournament").order_by(
            "entrant__name", "entrant__code", "stage__order"
        )
        page = self.paginate_queryset(seats)
        return self.get_paginated_response(
            PlayerSerializer(players_with_opponents(page), many=True).data
        )
