"""API representations of groups, their seats and games (shared with the results API)."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from apps.core.people import td_name
from apps.entrants.models import Entrant
from apps.entrants.serializers import PublicEntrantSerializer

from .models import Game, Group
from .permissions import NO_CONTACTS, Contacts


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
    name = serializers.SerializerMethodField(
        help_text='The name the TD shows others (never a login name), e.g. "TD 12" when unset.'
    )

    def get_name(self, user) -> str:
        return td_name(user)


class GroupSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    games_url = serializers.SerializerMethodField()
    formula = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The Silli formula d1.d2…dk; empty for a round robin or a Swiss.",
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
    id = serializers.IntegerField(
        read_only=True, help_text="The game's id: GET /api/games/{id}/, POST its result/."
    )
    url = serializers.SerializerMethodField()
    number = serializers.IntegerField(read_only=True, help_text="The game's number in the group.")
    white = PublicEntrantSerializer()
    black = PublicEntrantSerializer()
    white_contact = serializers.SerializerMethodField(help_text=CONTACT_HELP)
    black_contact = serializers.SerializerMethodField(help_text=CONTACT_HELP)

    class Meta:
        model = Game
        fields = [
            "id",
            "url",
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

    def get_url(self, game: Game) -> str:
        return reverse("api-game", args=[game.pk])

    def get_white_contact(self, game: Game) -> str | None:
        return contact_of(game.white, self.context.get("contacts", NO_CONTACTS))

    def get_black_contact(self, game: Game) -> str | None:
        return contact_of(game.black, self.context.get("contacts", NO_CONTACTS))


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


def contact_of(e: Entrant, contacts: Contacts) -> str | None:
    return (e.email or None) if contacts.shows(e.pk) else None
