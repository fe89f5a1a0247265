"""The API's representation of a player's profile (``GET /api/players/{id}/``)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from django.urls import reverse
from rest_framework import serializers

from apps.ratings import NormFigure, RatingLine

from .profiles import Profile, ProfileEvent, ProfileGame


def points(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def decimal(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


class ProfileGameSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The game's id (GET /api/games/{id}/pgn).")
    number = serializers.IntegerField(help_text="The game's number in its group.")
    url = serializers.CharField(help_text="The game's page.")
    colour = serializers.ChoiceField(choices=["white", "black"], help_text="The player's colour.")
    opponent = serializers.CharField(help_text="The opponent's name.")
    opponent_nation = serializers.CharField()
    opponent_rating = serializers.IntegerField(allow_null=True)
    opponent_player = serializers.IntegerField(
        allow_null=True, help_text="The opponent's player id, when they have a profile."
    )
    result = serializers.CharField(help_text='The game\'s result code ("" in progress).')
    score = serializers.CharField(help_text='From the player\'s side: "1", "½", "0", "+", "−".')


class RatingLineSerializer(serializers.Serializer):
    rating = serializers.IntegerField(allow_null=True, help_text="Before the event.")
    games = serializers.IntegerField(help_text="Rated games in the group.")
    score = serializers.FloatField()
    expected = serializers.CharField(allow_null=True, help_text="Unrounded; null if unrated.")
    k = serializers.IntegerField(allow_null=True)
    change = serializers.CharField(allow_null=True, help_text="One decimal; null if unrated.")
    new_rating = serializers.CharField(allow_null=True)
    provisional = serializers.BooleanField(help_text="True for an unrated player.")


class NormSerializer(serializers.Serializer):
    level = serializers.CharField(help_text="GM, SIM, IM, CCM or CCE.")
    level_rating = serializers.IntegerField()
    games = serializers.IntegerField()
    score = serializers.FloatField()
    requirement = serializers.FloatField()
    achieved = serializers.BooleanField()
    text = serializers.CharField(help_text='e.g. "IM norm: needs 6½, has 7 ✓".')


class ProfileEventSerializer(serializers.Serializer):
    tournament = serializers.CharField(help_text="The tournament's slug.")
    tournament_name = serializers.CharField()
    stage = serializers.IntegerField(help_text="The stage's order in the tournament.")
    stage_kind = serializers.CharField()
    group = serializers.IntegerField(help_text="The group's number.")
    group_url = serializers.CharField()
    seat = serializers.IntegerField()
    code = serializers.CharField(help_text="The entry's code in the tournament.")
    rating = serializers.IntegerField(allow_null=True, help_text="The rating the entry came with.")
    place = serializers.CharField(allow_null=True, help_text="e.g. 3 or 3-4; null until computed.")
    points = serializers.FloatField(allow_null=True)
    games = ProfileGameSerializer(many=True)
    rating_report = RatingLineSerializer()
    norms = NormSerializer(many=True)


class RatingListLineSerializer(serializers.Serializer):
    list = serializers.CharField(help_text='The list\'s name, e.g. "ICCF list 2026/4".')
    list_date = serializers.DateField()
    rating = serializers.IntegerField(allow_null=True)
    games = serializers.IntegerField(help_text="Rated games so far, as the list says.")
    title = serializers.CharField()


class ProfileSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    federation = serializers.CharField()
    title = serializers.CharField(help_text="The person's, else the latest rating list's.")
    rating_id = serializers.CharField(help_text='The ID on rating lists ("" when unknown).')
    rating_lists = RatingListLineSerializer(
        many=True, help_text="The person's line on every rating list naming their ID, latest first."
    )
    url = serializers.CharField(help_text="The profile page.")
    events = ProfileEventSerializer(many=True)
    norms_note = serializers.CharField(help_text="Norm figures are unofficial: this says why.")
    contacts = serializers.ListField(
        child=serializers.EmailField(),
        allow_null=True,
        help_text="The player's addresses: for the player, the organizers of their events "
        "and staff; null for everyone else.",
    )


def _game(event: ProfileEvent, game: ProfileGame) -> dict:
    seat = event.seat
    o = game.opponent
    return {
        "id": game.id,
        "number": game.number,
        "url": reverse(
            "game",
            args=[seat.stage.tournament.slug, seat.stage.order, seat.group.number, game.number],
        ),
        "colour": "white" if game.colour == "W" else "black",
        "opponent": o.name,
        "opponent_nation": o.nation,
        "opponent_rating": o.rating,
        "opponent_player": o.profile_id,
        "result": game.result,
        "score": game.score,
    }


def _rating(line: RatingLine) -> dict:
    return {
        "rating": line.rating,
        "games": len(line.games),
        "score": float(line.score),
        "expected": decimal(line.expected),
        "k": line.k,
        "change": decimal(line.change),
        "new_rating": decimal(line.new_rating),
        "provisional": line.provisional,
    }


def _norm(figure: NormFigure) -> dict:
    return {
        "level": figure.level.code,
        "level_rating": figure.level.rating,
        "games": figure.games,
        "score": float(figure.score),
        "requirement": float(figure.requirement),
        "achieved": figure.achieved,
        "text": figure.text(),
    }


def profile_data(profile: Profile) -> dict:
    """The profile as the API answers it."""
    person = profile.person
    events = []
    for event in profile.events:
        seat, standing = event.seat, event.standing
        events.append(
            {
                "tournament": seat.stage.tournament.slug,
                "tournament_name": seat.stage.tournament.name,
                "stage": seat.stage.order,
                "stage_kind": seat.stage.kind,
                "group": seat.group.number,
                "group_url": reverse(
                    "group", args=[seat.stage.tournament.slug, seat.stage.order, seat.group.number]
                ),
                "seat": seat.number,
                "code": seat.entrant.code,
                "rating": seat.entrant.rating,
                "place": standing.place if standing else None,
                "points": float(standing.points) if standing else None,
                "games": [_game(event, g) for g in event.games],
                "rating_report": _rating(event.rating) if event.rating else None,
                "norms": [_norm(f) for f in event.norms],
            }
        )
    return {
        "id": person.pk,
        "name": person.name,
        "federation": person.federation,
        "title": profile.title,
        "rating_id": person.rating_id,
        "rating_lists": [
            {
                "list": e.rating_list.name,
                "list_date": e.rating_list.list_date.isoformat(),
                "rating": e.rating,
                "games": e.games,
                "title": e.title,
            }
            for e in profile.rating_lists
        ],
        "url": reverse("player-profile", args=[person.pk]),
        "events": events,
        "norms_note": profile.unofficial,
        "contacts": profile.contacts,
    }
