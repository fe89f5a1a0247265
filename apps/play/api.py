"""The API of a game played here (docs/play.md §8): its position, moves and clocks, and
every action a board page does, so a player can use a client of their own.

Views parse the input, call one action of :mod:`apps.play.services`, and answer the game's
state (:func:`play_state`). A move is ``POST /api/games/{id}/moves/`` with the move in SAN
or UCI and the ply it follows: 201, 409 when that ply is not the game's last (a stale page,
a doubled submission), 400 with a sentence when the move is illegal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import chess
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.clock import PlayerClock, Side
from apps.core.api import error_responses
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import can_enter_results
from apps.stages.permissions import visible_stages_filter

from . import services
from .clocking import clock_of, game_times, silence_of
from .models import Move, PlayedGame
from .permissions import view_of

# ---------------------------------------------------------------------------
# Serializers (what the API answers and takes)
# ---------------------------------------------------------------------------

# The choice sets, named once in the schema (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]).
SIDES = [Side.WHITE.value, Side.BLACK.value]
CLAIM_KINDS = [c.value for c in services.Claim]


class StoredMoveSerializer(serializers.Serializer):
    ply = serializers.IntegerField(help_text="1 for White's first move")
    san = serializers.CharField()
    uci = serializers.CharField()
    played_at = serializers.DateTimeField()
    draw_offered = serializers.BooleanField()
    conditional = serializers.BooleanField(help_text="played from the player's conditional moves")


class MoveSerializer(StoredMoveSerializer):
    days_used = serializers.IntegerField(help_text="complete days of its reflection (leave out)")
    days_charged = serializers.IntegerField(help_text="days used, doubling included")


class PlayerClockSerializer(serializers.Serializer):
    moves_made = serializers.IntegerField()
    days_charged = serializers.IntegerField(
        help_text="summed from the start, move in hand included"
    )
    allowance = serializers.IntegerField(help_text="the most days for the next (current) move")
    days_left = serializers.IntegerField(help_text="allowance − days charged, never below 0")
    extra_days = serializers.IntegerField(help_text="days the TD added")


class ClocksSerializer(serializers.Serializer):
    white = PlayerClockSerializer()
    black = PlayerClockSerializer()
    in_hand_days_used = serializers.IntegerField(
        allow_null=True, help_text="days used on the move in hand (null once finished)"
    )
    loses_at = serializers.DateTimeField(
        allow_null=True, help_text="when the side to move loses on time if it does not move"
    )
    days_silent = serializers.IntegerField(allow_null=True)
    silence_loses_at = serializers.DateTimeField(
        allow_null=True, help_text="when the side to move loses by silence (null: declared)"
    )


class DrawOfferSerializer(serializers.Serializer):
    side = serializers.ChoiceField(choices=SIDES)
    ply = serializers.IntegerField()


class PlayStateSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    version = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ply = serializers.IntegerField(help_text="plies shown (the game's, less a visibility delay)")
    hidden_plies = serializers.IntegerField(help_text="plies hidden by the visibility delay")
    fen = serializers.CharField(help_text="the position after the plies shown")
    turn = serializers.ChoiceField(choices=SIDES, allow_null=True, help_text="null once finished")
    you = serializers.ChoiceField(
        choices=SIDES, allow_null=True, help_text="your side, if you play"
    )
    moves = MoveSerializer(many=True)
    clocks = ClocksSerializer(allow_null=True, help_text="null while moves are hidden")
    draw_offer = DrawOfferSerializer(allow_null=True)
    can_claim = serializers.ListField(
        child=serializers.ChoiceField(choices=CLAIM_KINDS),
        help_text="claims the server would grant you now",
    )
    result = serializers.CharField(help_text="empty while played")
    ended_by = serializers.CharField(help_text="how the game ended; empty while played")
    finished_at = serializers.DateTimeField(allow_null=True)


class MoveRequestSerializer(serializers.Serializer):
    move = serializers.CharField(max_length=16, help_text="SAN (Nf3) or UCI (g1f3)")
    after_ply = serializers.IntegerField(
        min_value=0, help_text="the game's last ply as you saw it (0 before White's first move)"
    )
    offer_draw = serializers.BooleanField(default=False, help_text="offer a draw with the move")


class MoveResponseSerializer(serializers.Serializer):
    ply = serializers.IntegerField()
    fen = serializers.CharField()
    turn = serializers.ChoiceField(choices=SIDES, allow_null=True)
    moves = StoredMoveSerializer(
        many=True, help_text="the move, and the conditional answers it triggered"
    )
    result = serializers.CharField()
    ended_by = serializers.CharField()


class ClaimRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=CLAIM_KINDS)
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="for a claim to the TD"
    )


class ClaimResponseSerializer(serializers.Serializer):
    granted = serializers.BooleanField()
    to_td = serializers.BooleanField(help_text="sent to the group's TD to decide")
    result = serializers.CharField()


class ConditionalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    after_ply = serializers.IntegerField()
    moves = serializers.ListField(child=serializers.CharField(), help_text="UCI")
    created_at = serializers.DateTimeField()


class ConditionalRequestSerializer(serializers.Serializer):
    after_ply = serializers.IntegerField(min_value=0, help_text="the game's last ply (yours)")
    moves = serializers.ListField(
        child=serializers.CharField(max_length=16),
        min_length=2,
        max_length=40,
        help_text="your opponent's move, your answer, … (SAN or UCI)",
    )


class ConditionalDeleteSerializer(serializers.Serializer):
    cancelled = serializers.IntegerField()


class AddDaysRequestSerializer(serializers.Serializer):
    side = serializers.ChoiceField(choices=SIDES)
    days = serializers.IntegerField(min_value=1, max_value=services.MOST_DAYS_ADDED)
    reason = serializers.CharField(max_length=500)


# ---------------------------------------------------------------------------
# The game's state
# ---------------------------------------------------------------------------


def played_for(request, pk: int) -> PlayedGame:
    """A game played here, of a stage the user may see, or 404."""
    played = (
        PlayedGame.objects.filter(visible_stages_filter(request.user, "stage__"), pk=pk)
        .select_related("stage__tournament", "game__group", "game__white", "game__black")
        .first()
    )
    if played is None:
        raise NotFound(_("There is no game %(id)s played on this server.") % {"id": pk})
    return played


def _clock(clock: PlayerClock, extra: int) -> dict[str, int]:
    return {
        "moves_made": clock.moves_made,
        "days_charged": clock.charged_total,
        "allowance": clock.allowance,
        "days_left": clock.days_left,
        "extra_days": extra,
    }


def _claims(played: PlayedGame, you: Side | None, lost: bool) -> list[str]:
    if you is None or played.finished_at is not None or played.game.result:
        return []
    board = services.replayed_board(played)
    claims = []
    if board.can_claim_threefold_repetition():
        claims.append(services.Claim.REPETITION.value)
    if board.can_claim_fifty_moves():
        claims.append(services.Claim.FIFTY_MOVES.value)
    if board.is_insufficient_material():
        claims.append(services.Claim.INSUFFICIENT_MATERIAL.value)
    if lost and Side.of_ply(played.ply + 1) is not you:
        claims.append(services.Claim.TIME.value)
    return claims


def play_state(user, played: PlayedGame, now: datetime | None = None) -> dict[str, Any]:
    """The game as ``user`` may see it (:func:`~apps.play.permissions.view_of`)."""
    now = now or timezone.now()
    shown = view_of(user, played)
    rows = list(Move.objects.filter(game=played).order_by("ply"))
    over = played.finished_at is not None or bool(played.game.result)
    hidden = shown.hides(played)
    times = game_times(played, [m.played_at for m in rows])
    report = clock_of(played, now, times)
    timed = {m.ply: m for m in report.moves}
    moves = [
        {
            "ply": m.ply,
            "san": m.san,
            "uci": m.uci,
            "played_at": m.played_at,
            "days_used": timed[m.ply].days_used if m.ply in timed else 0,
            "days_charged": timed[m.ply].days_charged if m.ply in timed else 0,
            "draw_offered": m.draw_offered,
            "conditional": m.conditional,
        }
        for m in rows[: shown.ply]
    ]
    fen = played.fen if not hidden else _fen_after(rows[: shown.ply])
    you = services.side_of(user, played)
    clocks = None
    lost = False
    if not hidden:
        silence = None if over else silence_of(played, now, times)
        lost = report.loss is not None or bool(silence and silence.lost)
        clocks = {
            "white": _clock(report.white, played.extra_days_white),
            "black": _clock(report.black, played.extra_days_black),
            "in_hand_days_used": None if over else report.in_hand.days_used,
            "loses_at": None if over else report.runs_out_at,
            "days_silent": None if silence is None else silence.days_silent,
            "silence_loses_at": None if silence is None else silence.loses_at,
        }
    offer = (
        {"side": played.draw_offer_side, "ply": played.draw_offer_ply}
        if played.draw_offer_side and not hidden
        else None
    )
    return {
        "game": played.pk,
        "version": played.version,
        "started_at": played.started_at,
        "ply": shown.ply,
        "hidden_plies": hidden,
        "fen": fen,
        "turn": None if over else Side.of_ply(played.ply + 1).value,
        "you": you.value if you else None,
        "moves": moves,
        "clocks": clocks,
        "draw_offer": offer,
        "can_claim": _claims(played, you, lost),
        "result": played.game.result,
        "ended_by": played.ended_by,
        "finished_at": played.finished_at,
    }


def _fen_after(rows: list[Move]) -> str:
    board = chess.Board()
    for row in rows:
        board.push(chess.Move.from_uci(row.uci))
    return board.fen()


def _require_player(request, played: PlayedGame) -> None:
    """The players' actions answer 403 to anyone else before the body is read."""
    services.require_player(request.user, played)


class PlayView(APIView):
    """A game played on this server: the position, the moves with their dates and days, both
    clocks in days, whose turn, the draw offer standing, the claims you could make, the
    result. What the public sees follows the stage's ``game_visibility``."""

    @extend_schema(responses={200: PlayStateSerializer, **error_responses(403, 404)})
    def get(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        return Response(PlayStateSerializer(play_state(request.user, played)).data)


class MovesView(APIView):
    """Make a move (the player to move)."""

    @extend_schema(
        request=MoveRequestSerializer,
        responses={201: MoveResponseSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        """201 with the move (and the conditional answers it triggered); 409 when
        ``after_ply`` is not the game's last ply, the game is over, or it is not your move;
        400 with a sentence for an illegal move."""
        data = _plain_move_request(request.data)
        if data is None:
            params = MoveRequestSerializer(data=request.data)
            if not params.is_valid():
                # Someone who may not move here hears that first, whatever they sent.
                _require_player(request, played_for(request, pk))
                raise serializers.ValidationError(params.errors)
            data = params.validated_data
        # The fast path: the action reads (and locks) the game once; 404 if it is not
        # played here, 403 for anyone but its players.
        outcome = services.make_move(
            actor=request.user,
            game_id=pk,
            move=data["move"],
            after_ply=data["after_ply"],
            offer_draw=data["offer_draw"],
        )
        after = outcome.played
        over = after.finished_at is not None
        # Built from what the action has at hand (MoveResponseSerializer's shape), without
        # instantiating serializers on the hot path.
        return Response(
            {
                "ply": after.ply,
                "fen": after.fen,
                "turn": None if over else Side.of_ply(after.ply + 1).value,
                "moves": [
                    {
                        "ply": m.ply,
                        "san": m.san,
                        "uci": m.uci,
                        "played_at": _WHEN.to_representation(m.played_at),
                        "draw_offered": m.draw_offered,
                        "conditional": m.conditional,
                    }
                    for m in outcome.moves
                ],
                "result": after.game.result,
                "ended_by": after.ended_by,
            },
            status=201,
        )


_WHEN = serializers.DateTimeField()


def _plain_move_request(data: Any) -> dict[str, Any] | None:
    """A move request in its plain JSON form (``move`` a short text, ``after_ply`` a whole
    number ≥ 0, ``offer_draw`` absent or a boolean, nothing else), as MoveRequestSerializer
    would validate it; None for anything else (the serializer then decides, with its
    errors)."""
    if not isinstance(data, dict) or not data.keys() <= {"move", "after_ply", "offer_draw"}:
        return None
    move, after_ply = data.get("move"), data.get("after_ply")
    offer_draw = data.get("offer_draw", False)
    if not isinstance(move, str) or not move.strip() or len(move) > 16:
        return None
    if type(after_ply) is not int or after_ply < 0 or type(offer_draw) is not bool:
        return None
    return {"move": move.strip(), "after_ply": after_ply, "offer_draw": offer_draw}


def _state_response(request, pk: int) -> Response:
    played = played_for(request, pk)
    return Response(PlayStateSerializer(play_state(request.user, played)).data)


class DrawOfferView(APIView):
    """Offer a draw without a move (a player; a standing offer until answered or the
    opponent moves): 409 before the stage's earliest move, with an offer standing, or within
    10 moves of your last offer."""

    @extend_schema(
        request=None, responses={200: PlayStateSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        services.offer_draw(actor=request.user, game_id=played.pk)
        return _state_response(request, pk)


class DrawAcceptView(APIView):
    """Accept the opponent's draw offer: the game is drawn."""

    @extend_schema(
        request=None, responses={200: PlayStateSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        services.accept_draw(actor=request.user, game_id=played.pk)
        return _state_response(request, pk)


class DrawDeclineView(APIView):
    """Decline the opponent's draw offer."""

    @extend_schema(
        request=None, responses={200: PlayStateSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        services.decline_draw(actor=request.user, game_id=played.pk)
        return _state_response(request, pk)


class ResignView(APIView):
    """Resign (a player, at any time while the game is played): the opponent wins."""

    @extend_schema(
        request=None, responses={200: PlayStateSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        services.resign(actor=request.user, game_id=played.pk)
        return _state_response(request, pk)


class LongThinkView(APIView):
    """Declare a long think (the player to move, before the stage's silence limit): this
    move may take more than the stage's ``silence_days`` without losing by silence (the
    clock still decides); the declaration ends with the move. 409 when it is not your move,
    you declared already, or the limit has passed."""

    @extend_schema(
        request=None, responses={200: PlayStateSerializer, **error_responses(403, 404, 409)}
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        services.declare_long_think(actor=request.user, game_id=played.pk)
        return _state_response(request, pk)


class ClaimView(APIView):
    """Claim (a player): ``repetition``, ``fifty_moves`` or ``insufficient_material`` (a draw,
    checked by the server), ``time`` (a win: the opponent's time or silence ran out), or
    ``tablebase``/``other`` with a reason (the TD decides). 409 when the claim does not
    hold."""

    @extend_schema(
        request=ClaimRequestSerializer,
        responses={200: ClaimResponseSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        _require_player(request, played)
        params = ClaimRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        outcome = services.claim(
            actor=request.user, game_id=played.pk, kind=data["kind"], reason=data["reason"]
        )
        body = {
            "granted": outcome.granted,
            "to_td": outcome.to_td,
            "result": outcome.played.game.result,
        }
        return Response(ClaimResponseSerializer(body).data)


class ConditionalsView(APIView):
    """Your conditional moves in this game (a player): list, add a line, cancel them all."""

    def _lines(self, request, played: PlayedGame) -> list[dict[str, Any]]:
        side = services.require_player(request.user, played)
        return [
            {"id": c.pk, "after_ply": c.after_ply, "moves": c.moves, "created_at": c.created_at}
            for c in services.active_conditionals(played, side)
        ]

    @extend_schema(responses={200: ConditionalSerializer(many=True), **error_responses(403, 404)})
    def get(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        return Response(ConditionalSerializer(self._lines(request, played), many=True).data)

    @extend_schema(
        request=ConditionalRequestSerializer,
        responses={201: ConditionalSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        """Leave "if X then Y …" after your own move: your opponent's expected move first,
        then your answer, and so on; each checked legal."""
        played = played_for(request, pk)
        _require_player(request, played)
        params = ConditionalRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        line = services.set_conditionals(
            actor=request.user, game_id=played.pk, after_ply=data["after_ply"], moves=data["moves"]
        )
        body = {
            "id": line.pk,
            "after_ply": line.after_ply,
            "moves": line.moves,
            "created_at": line.created_at,
        }
        return Response(ConditionalSerializer(body).data, status=201)

    @extend_schema(responses={200: ConditionalDeleteSerializer, **error_responses(403, 404)})
    def delete(self, request, pk: int) -> Response:
        """Cancel all your conditional lines in this game."""
        played = played_for(request, pk)
        cancelled = services.cancel_conditionals(actor=request.user, game_id=played.pk)
        return Response(ConditionalDeleteSerializer({"cancelled": cancelled}).data)


class AddDaysView(APIView):
    """Add days to a player's clock (the group's TD, the organizers), with a reason."""

    @extend_schema(
        request=AddDaysRequestSerializer,
        responses={200: PlayStateSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, pk: int) -> Response:
        played = played_for(request, pk)
        if not can_enter_results(request.user, played.game.group):
            raise ActionError(
                ErrorCode.PERMISSION_DENIED,
                _("Only the group's TD and the organizers may add days to a clock."),
            )
        params = AddDaysRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        services.add_days(
            actor=request.user,
            game_id=played.pk,
            side=data["side"],
            days=data["days"],
            reason=data["reason"],
        )
        return _state_response(request, pk)
