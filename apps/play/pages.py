"""What the board page of a game played here shows (``views.board``): the game found from its
address, and :class:`Board`, the page's reading of the game for one visitor — the position,
whose move, the moves with their dates, both clocks in days, the standing draw offer, what the
visitor may do.

Who sees the moves follows the stage's ``game_visibility``, as the API's (``permissions.view_of``):
the two players, the group's TD and the organizers see every move; others see them once the
game is finished (``finished``), a few moves behind (``delayed``), or, with ``players``, only
the group's players before the group is closed (the page is then not found for others). The
actions decide for themselves what is allowed; the page only offers what can succeed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import chess
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.clock import Side
from apps.core.errors import ActionError
from apps.core.permissions import Actor, can_enter_results
from apps.groups.models import Game, Group
from apps.results.history import result_label
from apps.results.reports import player_side
from apps.stages.models import Stage
from apps.stages.pages import visible_stage

from .clocking import clock_of
from .models import ConditionalLine, Move, PlayedGame
from .permissions import view_of
from .services import Claim, End, active_conditionals

# What the board page calls each claim and each way a game ends.
CLAIM_LABELS = {
    Claim.REPETITION: _("A draw by threefold repetition"),
    Claim.FIFTY_MOVES: _("A draw by the 50-move rule"),
    Claim.INSUFFICIENT_MATERIAL: _("A draw: no mate is possible"),
    Claim.TIME: _("A win: my opponent's time or silence ran out"),
    Claim.TABLEBASE: _("A tablebase result (the TD decides)"),
    Claim.OTHER: _("Something else (the TD decides)"),
}
END_LABELS = {
    End.CHECKMATE: _("checkmate"),
    End.STALEMATE: _("stalemate"),
    End.INSUFFICIENT_MATERIAL: _("insufficient material"),
    End.SEVENTYFIVE_MOVES: _("75 moves without a capture or a pawn move"),
    End.RESIGNATION: _("resignation"),
    End.AGREED_DRAW: _("draw agreed"),
    End.CLAIMED_REPETITION: _("draw claimed: threefold repetition"),
    End.CLAIMED_FIFTY_MOVES: _("draw claimed: the 50-move rule"),
    End.CLAIMED_INSUFFICIENT_MATERIAL: _("draw claimed: insufficient material"),
    End.TIME: _("lost on time"),
    End.SILENCE: _("lost by silence"),
}


def played_game(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
    """The played game at this address, its game, group, stage and tournament loaded; 404
    when the visitor may not see the stage, or the game is not played on this server."""
    stage = visible_stage(request, slug, order)
    group = get_object_or_404(Group, stage=stage, number=number)
    group.stage = stage
    game = get_object_or_404(
        Game.objects.select_related("white", "black"), group=group, number=game_number
    )
    game.group = group
    played = PlayedGame.objects.filter(game=game).first()
    if played is None:
        raise Http404(_("This game is not played on this server."))
    played.game, played.stage = game, stage
    try:
        view_of(request.user, played)
    except ActionError:
        # Before the group ends, a game shown to its group's players only: not found for
        # others (what the API answers 403 to).
        if played.stage.game_visibility == Stage.GameVisibility.PLAYERS:
            raise Http404(_("The games of this group are shown to its players only.")) from None
    return played


@dataclass(frozen=True)
class ClockLine:
    side: str
    name: str
    days_charged: int
    days_left: int


@dataclass(frozen=True)
class MoveRow:
    """One line of the move list: the move number and White's and Black's moves."""

    number: int
    moves: tuple[Move, ...]


@dataclass(frozen=True)
class Board:
    fen: str
    ply: int
    turn: str
    side: str | None
    started_at: datetime
    finished: bool
    result_label: str
    ending: str
    can_move: bool
    draw_offer_by: str | None
    can_offer_draw: bool
    can_answer_draw: bool
    can_leave_conditionals: bool
    can_add_days: bool
    # The player to move may declare a long think (once a move); ``long_think``: declared.
    can_declare_long_think: bool
    long_think: bool
    silence_days: int
    clocks: tuple[ClockLine, ...]
    moves: tuple[MoveRow, ...]
    conditionals: tuple[str, ...]


def _fen_after(moves: list[Move]) -> str:
    board = chess.Board()
    for move in moves:
        board.push_uci(move.uci)
    return board.fen()


def _rows(moves: list[Move]) -> tuple[MoveRow, ...]:
    rows: list[MoveRow] = []
    for move in moves:
        number = (move.ply + 1) // 2
        if rows and rows[-1].number == number:
            rows[-1] = MoveRow(number, (*rows[-1].moves, move))
        else:
            rows.append(MoveRow(number, (move,)))
    return tuple(rows)


def _line_in_san(line: ConditionalLine, fen: str) -> str:
    board = chess.Board(fen)
    sans = []
    for uci in line.moves:
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            break
        sans.append(board.san(move))
        board.push(move)
    return " ".join(sans)


def board_of(user: Actor, played: PlayedGame, now: datetime) -> Board:
    """The page's reading of ``played`` for ``user`` at ``now``."""
    game, stage = played.game, played.stage
    try:
        shown = view_of(user, played).ply
    except ActionError:
        shown = 0
    moves = list(Move.objects.filter(game=played, ply__lte=shown).order_by("ply"))
    fen = played.fen if shown == played.ply else _fen_after(moves)
    side = player_side(user, game)
    finished = played.finished_at is not None or bool(game.result)
    turn = "white" if played.ply % 2 == 0 else "black"
    offer_by = played.draw_offer_side or None
    report = clock_of(played, now, None)
    clocks = tuple(
        ClockLine(
            colour.value,
            entrant.name,
            report.clock(colour).charged_total,
            report.clock(colour).days_left,
        )
        for colour, entrant in ((Side.WHITE, game.white), (Side.BLACK, game.black))
    )
    playing = side is not None and not finished and stage.status == Stage.Status.PUBLISHED
    declared = played.long_think_white if turn == "white" else played.long_think_black
    conditionals: tuple[str, ...] = ()
    if playing and side is not None:
        lines = active_conditionals(played, Side(side))
        conditionals = tuple(
            _line_in_san(line, played.fen) for line in lines if line.after_ply == played.ply
        )
    return Board(
        fen=fen,
        ply=shown,
        turn=turn,
        side=side,
        started_at=played.started_at,
        finished=finished,
        result_label=result_label(game.result),
        ending=str(END_LABELS.get(End(played.ended_by), "")) if played.ended_by else "",
        can_move=playing and side == turn,
        draw_offer_by=offer_by if shown == played.ply else None,
        # Offered from the stage's earliest move on (the move in hand's number).
        can_offer_draw=playing
        and offer_by is None
        and (played.ply + 2) // 2 >= stage.draw_earliest_move,
        can_leave_conditionals=playing and side != turn,
        can_add_days=not finished
        and stage.status == Stage.Status.PUBLISHED
        and can_enter_results(user, game.group),
        can_answer_draw=playing and offer_by is not None and offer_by != side,
        can_declare_long_think=playing and side == turn and not declared,
        long_think=playing and side == turn and declared,
        silence_days=stage.silence_days,
        clocks=clocks,
        moves=_rows(moves),
        conditionals=conditionals,
    )


def board_url(game: Game) -> str:
    """The address of the board page of ``game`` (its group and stage loaded)."""
    stage = game.group.stage
    return reverse(
        "game-play", args=[stage.tournament.slug, stage.order, game.group.number, game.number]
    )
