"""REST API of standings: a group's standings and crosstable, a stage's unified ranking.

Readable by anyone who may see the stage. Points are numbers; the tie-break ``figures`` are
exact decimals as strings (``"33.333333"``), keyed as in the standings CSV. While a group's
recompute is pending, ``pending_since`` says since when its stored standings may miss results
(the ranking says it for the stage's groups, and ``ranking_pending_since`` for the stored
ranking itself, read a page at a time); organizers can force a recompute with
``POST /api/stages/{id}/recompute/``.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from decimal import Decimal

from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import Pagination, error_responses, nullable_schema
from apps.entrants.serializers import PublicEntrantSerializer
from apps.groups.lookups import group_for_reading
from apps.stages.lookups import stage_for_action, stage_for_reading

from .crosstable import Crosstable, Row, build
from .display import ordered_cells
from .freshness import pending_since, ranking_state, stage_pending
from .models import GroupStanding
from .ranking import StoredRanking
from .services import force_recompute
from .swiss_rounds import RoundPlayer, RoundSheet, round_sheet

# ---------------------------------------------------------------------------
# Serializers
# ---------------------------------------------------------------------------


def _points() -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=7, decimal_places=2, coerce_to_string=False)


class CountsSerializer(serializers.Serializer):
    games = serializers.IntegerField()
    finished = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    adjudicated = serializers.IntegerField()


class FiguresField(serializers.DictField):
    """Every tie-break figure by name (points, games, gms, rgp, bh, bh_c1, bh_c2, ts, ts_cut1,
    ts_median, sb, wins, black_games), as exact decimal strings."""

    child = serializers.CharField()


class StandingRowSerializer(serializers.Serializer):
    place = serializers.CharField(help_text='"3", or "3-4" when shared; "" before any result.')
    seat = serializers.IntegerField()
    entrant = PublicEntrantSerializer()
    points = _points()
    figures = FiguresField()
    finished = serializers.IntegerField()
    scheduled = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class GroupStandingsSerializer(serializers.Serializer):
    group = serializers.IntegerField()
    number = serializers.IntegerField()
    tiebreak = serializers.CharField(help_text='"torino", "buchholz" or "swiss".')
    keys = serializers.ListField(
        child=serializers.CharField(), help_text="The figures that break ties, in order."
    )
    provisional = serializers.BooleanField(help_text="True while games are in progress.")
    standings_at = serializers.DateTimeField(allow_null=True)
    pending_since = serializers.DateTimeField(
        allow_null=True,
        help_text="Set while the standings are being updated: results entered since then may "
        "not be counted yet. Null: up to date.",
    )
    counts = CountsSerializer()
    rows = StandingRowSerializer(many=True, help_text="In order of place.")


class CellSerializer(serializers.Serializer):
    game = serializers.IntegerField(source="game_id", help_text="The game's id.")
    opponent_seat = serializers.IntegerField()
    colour = serializers.ChoiceField(
        choices=["white", "black"], help_text="This row's player's colour."
    )
    symbol = serializers.CharField(help_text='"1", "½", "0", "+", "−", or "" in progress.')
    result = serializers.CharField(help_text="The game's result code, from White's side.")
    version = serializers.IntegerField()
    adjudicated = serializers.BooleanField()
    latest = serializers.BooleanField(help_text="Entered in the last two weeks.")


class CrosstableRowSerializer(StandingRowSerializer):
    remaining = serializers.IntegerField()
    cells = CellSerializer(many=True, help_text="White games, then Black games, in formula order.")


class CrosstableSerializer(GroupStandingsSerializer):
    rows = CrosstableRowSerializer(many=True, help_text="In seat order.")


class RoundPlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="The player's seat (start number).")
    entrant = PublicEntrantSerializer()
    points_before = _points()
    withdrawn = serializers.BooleanField(help_text="Withdrawn from the stage (now).")


class BoardSerializer(serializers.Serializer):
    board = serializers.IntegerField(help_text="The board: the game's place in its round.")
    game = serializers.IntegerField(
        source="game_id", help_text="The game's id: GET /api/games/{id}/, POST its result/."
    )
    url = serializers.CharField(help_text="The game's API address.")
    number = serializers.IntegerField(help_text="The game's number in the group.")
    white = RoundPlayerSerializer(help_text="With their points before the round.")
    black = RoundPlayerSerializer(help_text="With their points before the round.")
    result = serializers.CharField(help_text='The result code from White\'s side; "" in progress.')
    adjudicated = serializers.BooleanField()
    version = serializers.IntegerField(help_text="The game's version, for the result entry.")
    finished_on = serializers.DateField(allow_null=True)


class SwissRoundSerializer(serializers.Serializer):
    group = serializers.IntegerField(help_text="The group's id.")
    round = serializers.IntegerField()
    rounds = serializers.IntegerField(help_text="The rounds the stage plays.")
    paired = serializers.IntegerField(help_text="The last round paired so far (the current).")
    started_at = serializers.DateTimeField(
        allow_null=True, help_text="When the round was paired (null: not recorded)."
    )
    due_at = serializers.DateTimeField(
        allow_null=True, help_text="The round's deadline (null: none)."
    )
    deadline_passed = serializers.BooleanField(
        help_text="The round's deadline passed and was acted on."
    )
    open_games = serializers.IntegerField(help_text="Games of the round without a result.")
    boards = BoardSerializer(many=True, help_text="In board order.")
    bye = RoundPlayerSerializer(
        allow_null=True, help_text="The pairing-allocated bye (a win's points, no game)."
    )
    absent = RoundPlayerSerializer(
        many=True,
        help_text="Players not paired in this round: no game, no points (withdrawn, or joined "
        "after it was paired).",
    )
    keys = serializers.ListField(
        child=serializers.CharField(), help_text="The figures that break ties, in order."
    )
    standings = StandingRowSerializer(
        many=True,
        help_text="The standings after this round, in order of place: the games of the rounds "
        "up to it only (provisional while open_games > 0).",
    )


class RankingRowSerializer(serializers.Serializer):
    place = serializers.CharField()
    group = serializers.IntegerField(source="group__number", help_text="The group's number.")
    seat = serializers.IntegerField()
    entrant = serializers.SerializerMethodField()
    points = _points()
    figures = FiguresField()
    finished = serializers.IntegerField()
    scheduled = serializers.IntegerField()
    withdrawn = serializers.BooleanField()

    @extend_schema_field(PublicEntrantSerializer)
    def get_entrant(self, row: dict) -> dict:
        return {
            "code": row["entrant__code"],
            "name": row["entrant__name"],
            "nation": row["entrant__nation"],
            "rating": row["entrant__rating"],
        }


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


def _entrant(row: Row) -> dict:
    return {"code": row.code, "name": row.name, "nation": row.nation, "rating": row.rating}


def _row(row: Row) -> dict:
    return {
        "place": row.place,
        "seat": row.seat,
        "entrant": _entrant(row),
        "points": row.points,
        "figures": row.figures,
        "finished": row.finished,
        "scheduled": row.scheduled,
        "withdrawn": row.withdrawn,
    }


def _table(table: Crosstable, rows: list[dict]) -> dict:
    group = table.group
    return {
        "group": group.pk,
        "number": group.number,
        "tiebreak": group.stage.tournament.tiebreak,
        "keys": table.keys,
        "provisional": table.counts["in_progress"] > 0,
        "standings_at": group.standings_at,
        "pending_since": pending_since(group),
        "counts": table.counts,
        "rows": rows,
    }


class GroupStandingsView(APIView):
    """A group's standings, in order of place (provisional while games are in progress)."""

    @extend_schema(responses={200: GroupStandingsSerializer, **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        table = build(group_for_reading(request, pk))
        data = _table(table, [_row(r) for r in table.by_place()])
        return Response(GroupStandingsSerializer(data).data)


class GroupCrosstableView(APIView):
    """A group's crosstable: every seat with its games (opponent, colour, result)."""

    @extend_schema(responses={200: CrosstableSerializer, **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        group = group_for_reading(request, pk)
        table = build(group)
        rows = []
        for row in table.rows:
            cells = [
                {**asdict(c), "colour": "white" if c.colour == "W" else "black"}
                for c in ordered_cells(row, group.size)
            ]
            rows.append({**_row(row), "remaining": row.remaining, "cells": cells})
        return Response(CrosstableSerializer(_table(table, rows)).data)


def _round_player(player: RoundPlayer) -> dict:
    return {
        "seat": player.seat,
        "entrant": player.entrant(),
        "points_before": Decimal(player.points.numerator) / player.points.denominator,
        "withdrawn": player.withdrawn,
    }


def round_data(sheet: RoundSheet) -> dict:
    """A Swiss round as the API answers it."""
    record = sheet.record
    return {
        "group": sheet.group.pk,
        "round": sheet.number,
        "rounds": sheet.rounds,
        "paired": sheet.paired,
        "started_at": sheet.started_at,
        "due_at": sheet.due_at,
        "deadline_passed": bool(record and record.deadline_passed_at),
        "open_games": sheet.open_games,
        "boards": [
            {
                **{k: getattr(b, k) for k in ("board", "game_id", "number", "result")},
                "url": reverse("api-game", args=[b.game_id]),
                "white": _round_player(b.white),
                "black": _round_player(b.black),
                "adjudicated": b.adjudicated,
                "version": b.version,
                "finished_on": b.finished_on,
            }
            for b in sheet.boards
        ],
        "bye": _round_player(sheet.bye) if sheet.bye else None,
        "absent": [_round_player(p) for p in sheet.absent],
        "keys": sheet.keys,
        "standings": [
            {
                "place": line.place,
                "seat": line.player.seat,
                "entrant": line.player.entrant(),
                "points": line.points,
                "figures": line.figures,
                "finished": line.finished,
                "scheduled": line.scheduled,
                "withdrawn": line.player.withdrawn,
            }
            for line in sheet.standings
        ],
    }


class GroupRoundView(APIView):
    """One round of a Swiss group: its boards (each with both players' points before the
    round, the result and the game's version for the result entry), the bye, the players not
    paired, the round's start and deadline, and the standings after the round (the games of
    the rounds up to it only, through the same tie-breaks as the group's standings). 404 for
    a group of another format and for a round not paired yet."""

    @extend_schema(
        summary="A Swiss round: pairings, results, standings after it",
        responses={200: SwissRoundSerializer, **error_responses(404)},
    )
    def get(self, request, pk: int, round_number: int) -> Response:
        group = group_for_reading(request, pk)
        if not group.stage.is_swiss:
            raise NotFound(
                _("Group %(id)s is not of a Swiss stage: it has no rounds of its own.") % {"id": pk}
            )
        sheet = round_sheet(group, round_number)
        if sheet is None:
            raise NotFound(
                _("Round %(round)s of group %(id)s is not paired.")
                % {"round": round_number, "id": pk}
            )
        return Response(SwissRoundSerializer(round_data(sheet)).data)


def _time(value) -> str | None:
    return serializers.DateTimeField().to_representation(value) if value else None


class RankingPagination(Pagination):
    """Pages of 100, with the stage's pending standings and the stored ranking's state (set
    by the view before paginating)."""

    page_size = 100
    pending_groups = 0
    pending_since: datetime | None = None
    ranking_at: datetime | None = None
    ranking_pending_since: datetime | None = None

    def get_paginated_response(self, data) -> Response:
        response = super().get_paginated_response(data)
        response.data["pending_groups"] = self.pending_groups
        response.data["pending_since"] = _time(self.pending_since)
        response.data["ranking_at"] = _time(self.ranking_at)
        response.data["ranking_pending_since"] = _time(self.ranking_pending_since)
        return response

    def get_paginated_response_schema(self, schema: dict) -> dict:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["pending_groups"] = {
            "type": "integer",
            "description": "Groups whose standings are being updated (0: all up to date).",
        }
        paginated["properties"]["pending_since"] = nullable_schema(
            {
                "type": "string",
                "format": "date-time",
                "description": "The oldest of their marks: results entered since then may not be "
                "counted in the ranking yet.",
            }
        )
        paginated["properties"]["ranking_at"] = nullable_schema(
            {
                "type": "string",
                "format": "date-time",
                "description": "When the stored ranking these rows come from was built (null: not "
                "yet).",
            }
        )
        paginated["properties"]["ranking_pending_since"] = nullable_schema(
            {
                "type": "string",
                "format": "date-time",
                "description": "Set while the stored ranking is being rebuilt: standings changed "
                "since then may not be counted in these rows yet. Null: up to date.",
            }
        )
        return paginated


class StageRankingView(GenericAPIView):
    """The stage's unified ranking: every group's players in one order by the tournament's
    tie-break chain (equal on every key: a shared place). 100 per page, read from the stored
    ranking (rebuilt after the standings change; ``ranking_pending_since`` meanwhile)."""

    queryset = GroupStanding.objects.none()  # for introspection
    serializer_class = RankingRowSerializer
    pagination_class = RankingPagination
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[GroupStanding]:
        return GroupStanding.objects.none()

    @extend_schema(responses={200: RankingRowSerializer(many=True), **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        stage = stage_for_reading(request, pk)
        pending = stage_pending(stage)
        state = ranking_state(stage, heal=True)
        paginator = self.paginator
        assert isinstance(paginator, RankingPagination)
        paginator.pending_groups, paginator.pending_since = pending.groups, pending.since
        paginator.ranking_at, paginator.ranking_pending_since = state.built_at, state.pending_since
        # A slice of the stored ranking reads that page's positions only.
        # Sliced only: neither a QuerySet nor a whole Sequence (the stubs want one).
        page = self.paginate_queryset(StoredRanking(stage, state))  # type: ignore[arg-type]
        return self.get_paginated_response(RankingRowSerializer(page, many=True).data)


class RecomputeSerializer(serializers.Serializer):
    groups = serializers.IntegerField(help_text="How many groups' recomputes were queued.")
    pending_groups = serializers.IntegerField(
        help_text="Groups of the stage whose standings are being updated now."
    )
    pending_since = serializers.DateTimeField(allow_null=True)


class StageRecomputeView(APIView):
    """Force a recompute of the standings of every group of the stage (organizers; a
    published or closed stage): each group is marked as being updated and its recompute
    queued. Follow ``pending_since`` of the standings or the ranking until it is null."""

    @extend_schema(
        request=None,
        responses={202: RecomputeSerializer, **error_responses(403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        groups = force_recompute(request.user, stage)
        pending = stage_pending(stage)
        data = {
            "groups": len(groups),
            "pending_groups": pending.groups,
            "pending_since": pending.since,
        }
        return Response(RecomputeSerializer(data).data, status=status.HTTP_202_ACCEPTED)
