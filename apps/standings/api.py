"""REST API of standings: a group's standings and crosstable, a stage's unified ranking.

Readable by anyone who may see the stage. Points are numbers; the tie-break ``figures`` are
exact decimals as strings (``"33.333333"``), keyed as in the standings CSV.
"""

from __future__ import annotations

from dataclasses import asdict

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import Pagination, error_responses
from apps.groups.api import PublicEntrantSerializer, group_for_reading
from apps.stages.api import stage_for_reading

from .crosstable import Crosstable, Row, build
from .models import GroupStanding
from .services import stage_ranking
from .views import ordered_cells

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
    tiebreak = serializers.CharField(help_text='"torino" or "buchholz".')
    keys = serializers.ListField(
        child=serializers.CharField(), help_text="The figures that break ties, in order."
    )
    provisional = serializers.BooleanField(help_text="True while games are in progress.")
    standings_at = serializers.DateTimeField(allow_null=True)
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


class RankingPagination(Pagination):
    page_size = 100


class StageRankingView(GenericAPIView):
    """The stage's unified ranking: every group's players in one order by the tournament's
    tie-break chain (equal on every key: a shared place). 100 per page."""

    queryset = GroupStanding.objects.none()  # for introspection
    serializer_class = RankingRowSerializer
    pagination_class = RankingPagination
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[GroupStanding]:
        return GroupStanding.objects.none()

    @extend_schema(responses={200: RankingRowSerializer(many=True), **error_responses(404)})
    def get(self, request, pk: int) -> Response:
        stage = stage_for_reading(request, pk)
        page = self.paginate_queryset(stage_ranking(stage))
        return self.get_paginated_response(RankingRowSerializer(page, many=True).data)
