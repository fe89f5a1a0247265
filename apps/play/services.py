"""Play on the server: the actions on a game played here (docs/play.md).

Every action takes the acting user (``actor``), checks who may do it, runs in one
transaction with its audit event. A move locks the :class:`~apps.play.models.PlayedGame` row
first (``select_for_update``): two submissions of the same move take turns, and the second
finds the ply already made (409). The end of a game enters its result through the one result
action (``apps.results.services.set_result``), with the score and each move's date.

Lock order (apps/core/locking.py): a played game's row is locked before its group and its
``Game`` (which only the end of a game locks, through ``locked_game``); nothing locks a played
game while holding its group.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

import chess
import chess.pgn
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.db.models import Field, Model
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clock import DAY, GameTimes, Reminder, Side, days_to_exceed
from apps.core.audit import Action, AuditEvent, record, record_unpaged
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, can_enter_results, signed_in
from apps.core.results import Result
from apps.groups.models import Game
from apps.results.imports import checked_game_score
from apps.results.services import locked_game, set_result
from apps.stages.models import Stage

from .clocking import (
    clock_of,
    control_of,
    extended,
    game_times,
    inputs_columns,
    inputs_from,
    refresh_deadlines,
    silence_of,
)
from .models import ConditionalLine, Leave, Move, PlayedGame

# How a game played here got its result, as the result's audit event says it
# (apps.results.settling's roads).
PLAY_ROAD = "play"

START_FEN = chess.STARTING_FEN


def fresh_deadlines(stage: Stage, start: datetime) -> tuple[datetime, datetime]:
    """A game's ``loses_at`` and ``next_reminder_at`` at its start, before any leave: White's
    first move under the stage's control, and the first silence reminder (or the loss)."""
    control = control_of(stage)
    loses_at = start + days_to_exceed(control.allowance(1), control.doubling_after) * DAY
    first = [r.days for r in Reminder if r.days < stage.silence_days]
    return loses_at, start + timedelta(days=min(first, default=stage.silence_days))


def start_play(stage: Stage, at: datetime | None = None, *, actor: Actor | None = None) -> int:
    """Begin play here for the stage's games that have none yet (every game of a stage
    drawn and published, or a Swiss round's new games): one ``PlayedGame`` each at the start
    position, its clock started ``at`` (default now). Idempotent; nothing for a stage not
    played on this server. Returns how many games began.

    Called inside the publishing (or pairing) action's transaction: its caller checked who
    may do it. Set-based: one ``INSERT … SELECT``; the few games whose players have leave
    announced get their deadlines recomputed one by one.
    """
    if not stage.play_on_server:
        return 0
    start = at or timezone.now()
    loses_at, reminder_at = fresh_deadlines(stage, start)
    table = PlayedGame._meta.db_table
    games = Game._meta.db_table
    groups = Game._meta.get_field("group").related_model._meta.db_table  # type: ignore[union-attr]
    instant = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (game_id, stage_id, started_at, ply, fen, finished_at, loses_at,
                next_reminder_at, reminders_sent, extra_days_white, extra_days_black,
                long_think_white, long_think_black, draw_offer_ply, draw_offer_side,
                last_offer_move_white, last_offer_move_black, ended_by, version)
            SELECT g.id, gr.stage_id, %s, 0, %s, NULL, %s, %s, 0, 0, 0, %s, %s, NULL, '',
                NULL, NULL, '', 0
            FROM {games} g JOIN {groups} gr ON gr.id = g.group_id
            WHERE gr.stage_id = %s AND g.result = ''
            ON CONFLICT (game_id) DO NOTHING
            """,
            # Instants as the ORM writes them (SQLite keeps text: an offset on some and not
            # on others would compare wrongly at the very same instant).
            [instant(start), START_FEN, instant(loses_at), instant(reminder_at)]
            + [False, False, stage.pk],
        )
        started = cursor.rowcount
    if started:
        _refresh_games_with_leave(stage, start)
        record(Action.PLAY_STARTED, actor, stage=stage, games=started, at=start.isoformat())
    return started


def _refresh_games_with_leave(stage: Stage, start: datetime) -> None:
    """Recompute the deadlines of the stage's unstarted games whose players announced leave
    (the set-based start counted none)."""
    on_leave = Leave.objects.filter(
        cancelled_at__isnull=True, ends_on__gte=start.date()
    ).values_list("user_id", flat=True)
    played = (
        PlayedGame.objects.filter(stage=stage, ply=0, finished_at__isnull=True)
        .filter(game__white__user_id__in=on_leave)
        .union(
            PlayedGame.objects.filter(stage=stage, ply=0, finished_at__isnull=True).filter(
                game__black__user_id__in=on_leave
            )
        )
    )
    for pk in [p.pk for p in played]:
        refresh_deadlines(
            PlayedGame.objects.select_related("stage", "game__white", "game__black").get(pk=pk),
            start,
        )


# ---------------------------------------------------------------------------
# The actions on a game
# ---------------------------------------------------------------------------


class End(StrEnum):
    """How a game played here ended (``PlayedGame.ended_by``)."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    SEVENTYFIVE_MOVES = "seventyfive_moves"
    RESIGNATION = "resignation"
    AGREED_DRAW = "agreed_draw"
    CLAIMED_REPETITION = "claimed_repetition"
    CLAIMED_FIFTY_MOVES = "claimed_fifty_moves"
    CLAIMED_INSUFFICIENT_MATERIAL = "claimed_insufficient_material"
    TIME = "time"
    SILENCE = "silence"


class Claim(StrEnum):
    """What a player may claim (docs/play.md §5)."""

    REPETITION = "repetition"  # a draw: the position occurred three times
    FIFTY_MOVES = "fifty_moves"  # a draw: 50 moves without a capture or a pawn move
    INSUFFICIENT_MATERIAL = "insufficient_material"  # a draw: no mate is possible
    TIME = "time"  # a win: the opponent's time or silence ran out
    TABLEBASE = "tablebase"  # to the TD
    OTHER = "other"  # to the TD


# Claims the server decides at once; the others go to the TD.
DRAW_CLAIMS = {
    Claim.REPETITION: End.CLAIMED_REPETITION,
    Claim.FIFTY_MOVES: End.CLAIMED_FIFTY_MOVES,
    Claim.INSUFFICIENT_MATERIAL: End.CLAIMED_INSUFFICIENT_MATERIAL,
}

# One draw offer per this many of the game's moves per player.
OFFER_EVERY_MOVES = 10

# What the TD may add to a clock at once.
MOST_DAYS_ADDED = 365

_WINS = {Side.WHITE: Result.WHITE_WINS, Side.BLACK: Result.BLACK_WINS}


def _other(side: Side) -> Side:
    return Side.BLACK if side is Side.WHITE else Side.WHITE


def _record(
    action: Action, actor: Actor | None, played: PlayedGame, *, paged: bool, **data: object
) -> AuditEvent:
    """The audit event of an action on a played game, in the game's scopes; ``paged``: the
    event retires the cached public pages of its scopes (a result does; a move or an offer,
    which no cached page shows, does not)."""
    write = record if paged else record_unpaged
    return write(
        action, actor, stage=played.stage, group=played.game.group, game=played.game, **data
    )


def _side_name(side: Side) -> str:
    return _("White") if side is Side.WHITE else _("Black")


def _columns(model: type[Model], alias: str) -> list[str]:
    return [f'{alias}."{f.column}"' for f in model._meta.concrete_fields]


_CONVERTERS: dict[type, list[tuple[object, list]]] = {}


def _instance(model: type[Model], values: Sequence[object]) -> Any:
    """A model instance from its concrete fields' ``values`` (in ``_meta`` order), as the ORM
    would load it (the backend's and each field's converters applied)."""
    fields = model._meta.concrete_fields
    if model not in _CONVERTERS:
        columns = [f.get_col(model._meta.db_table) for f in fields]
        _CONVERTERS[model] = [
            (col, connection.ops.get_db_converters(col) + col.get_db_converters(connection))
            for col in columns
        ]
    converted = []
    for value, (col, converters) in zip(values, _CONVERTERS[model], strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


# The played game with its stage, tournament, game, group and both entrants, locked: one
# statement, written once (a move's hot path; the ORM's select_related compiled it anew for
# every move, a third of a move's time in the web process).
_LOCKED_SQL: str | None = None


def _locked_sql() -> str:
    global _LOCKED_SQL
    if _LOCKED_SQL is None:
        from apps.entrants.models import Entrant
        from apps.groups.models import Group
        from apps.stages.models import Tournament

        columns = [
            *_columns(PlayedGame, "p"),
            *_columns(Stage, "s"),
            *_columns(Tournament, "t"),
            *_columns(Game, "g"),
            *_columns(Group, "gr"),
            *_columns(Entrant, "w"),
            *_columns(Entrant, "b"),
        ]
        if connection.vendor == "postgresql":
            columns += inputs_columns("p", "w", "b")
        features = connection.features
        lock = ""
        if features.has_select_for_update:
            of = ("p",) if features.has_select_for_update_of else ()
            lock = connection.ops.for_update_sql(
                of=of, no_key=features.has_select_for_no_key_update
            )
        _LOCKED_SQL = f"""
            SELECT {", ".join(columns)}
            FROM {PlayedGame._meta.db_table} p
            JOIN {Stage._meta.db_table} s ON s.id = p.stage_id
            JOIN {Tournament._meta.db_table} t ON t.id = s.tournament_id
            JOIN {Game._meta.db_table} g ON g.id = p.game_id
            JOIN {Group._meta.db_table} gr ON gr.id = g.group_id
            LEFT JOIN {Entrant._meta.db_table} w ON w.id = g.white_id
            LEFT JOIN {Entrant._meta.db_table} b ON b.id = g.black_id
            WHERE p.game_id = %s
            {lock}
        """
    return _LOCKED_SQL


def locked_played(game_id: int) -> PlayedGame:
    """The played game, locked for the caller's transaction (``FOR NO KEY UPDATE`` of its
    row only), with its stage, tournament, game, group and players; NOT_FOUND when the game
    is not played here. One statement, as ``select_related`` would load it."""
    from apps.entrants.models import Entrant
    from apps.groups.models import Group
    from apps.stages.models import Tournament

    with connection.cursor() as cursor:
        cursor.execute(_locked_sql(), [game_id])
        row = cursor.fetchone()
    if row is None:
        raise ActionError(
            ErrorCode.NOT_FOUND, _("Game %(id)s is not played on this server.") % {"id": game_id}
        )
    parts = []
    start = 0
    for model in (PlayedGame, Stage, Tournament, Game, Group, Entrant, Entrant):
        width = len(model._meta.concrete_fields)
        parts.append((model, row[start : start + width]))
        start += width
    played, stage, tournament, game, group, white, black = (
        _instance(model, values) if values[0] is not None else None for model, values in parts
    )
    assert played is not None and stage is not None and game is not None  # inner joins
    stage.tournament = tournament
    game.group, game.white, game.black = group, white, black
    played.stage, played.game = stage, game
    if len(row) > start:
        # The clock's inputs, read with the lock: the action's first ``game_times`` takes
        # them (apps.play.clocking).
        played.__dict__["clock_inputs"] = inputs_from(played, row[start:])
    return played


def side_of(user: Actor | None, played: PlayedGame) -> Side | None:
    """The side ``user`` plays in the game (None: not a player of it). A person holding both
    entries (never in one game by the draw) plays the side to move."""
    if not signed_in(user):
        return None
    game = played.game
    white, black = game.white.user_id == user.pk, game.black.user_id == user.pk
    if white and black:
        return Side.of_ply(played.ply + 1)
    return Side.WHITE if white else Side.BLACK if black else None


def require_player(user: Actor | None, played: PlayedGame) -> Side:
    side = side_of(user, played)
    if side is None:
        raise ActionError(
            ErrorCode.PERMISSION_DENIED, _("Only the two players of this game may do this.")
        )
    return side


def require_playing(played: PlayedGame) -> None:
    """Refuse unless the game is being played: its stage in play, no result yet."""
    if played.finished_at is not None or played.game.result:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("The game is over (%(result)s).") % {"result": played.game.result or "…"},
        )
    if played.stage.status != Stage.Status.PUBLISHED:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("The stage is not in play (it is %(status)s).")
            % {"status": played.stage.get_status_display().lower()},
        )


def _move_number(ply: int) -> int:
    """The game's move number of ``ply`` (plies 1 and 2 are move 1)."""
    return (ply + 1) // 2


def _check_offer(played: PlayedGame, side: Side, ply: int) -> None:
    """Refuse a draw offer by ``side`` made with ply ``ply`` (or, standing, in hand)."""
    number = _move_number(ply)
    earliest = played.stage.draw_earliest_move
    if number < earliest:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("A draw may be offered from move %(earliest)s on; this is move %(number)s.")
            % {"earliest": earliest, "number": number},
        )
    if played.draw_offer_side:
        raise ActionError(ErrorCode.WRONG_STATUS, _("A draw offer already stands."))
    last = getattr(played, f"last_offer_move_{side}")
    if last is not None and number < last + OFFER_EVERY_MOVES:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _(
                "One draw offer per %(every)s moves: your last was at move %(last)s, the next "
                "may come at move %(next)s."
            )
            % {"every": OFFER_EVERY_MOVES, "last": last, "next": last + OFFER_EVERY_MOVES},
        )


def _offer(played: PlayedGame, side: Side, ply: int) -> None:
    played.draw_offer_side = side.value
    played.draw_offer_ply = ply
    setattr(played, f"last_offer_move_{side}", _move_number(ply))


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """``text`` (UCI or SAN) as a legal move on ``board``, or INVALID_INPUT with a sentence."""
    text = text.strip()
    side = _side_name(Side.WHITE if board.turn == chess.WHITE else Side.BLACK)
    if not text:
        raise ActionError(ErrorCode.INVALID_INPUT, _("Give a move, e.g. e4 or e2e4."))
    try:
        move = chess.Move.from_uci(text)
    except ValueError:
        move = None
    if move is not None and move in board.legal_moves:
        return move
    try:
        return board.parse_san(text)
    except chess.AmbiguousMoveError:
        problem = _("%(move)s is ambiguous: say which piece moves, e.g. Nbd2.")
    except chess.IllegalMoveError:
        problem = _("%(move)s is not a legal move for %(side)s in this position.")
    except ValueError:
        problem = _("%(move)s is not a move (give it in SAN, e.g. Nf3, or UCI, e.g. g1f3).")
    raise ActionError(ErrorCode.INVALID_INPUT, problem % {"move": text, "side": side})


@dataclass
class Outcome:
    """What an action did: the game after it, and the moves it stored (a move and the
    conditional answers it triggered)."""

    played: PlayedGame
    moves: list[Move]


def _next_move(
    played: PlayedGame,
    board: chess.Board,
    move: chess.Move,
    *,
    by_id: int | None,
    now: datetime,
    draw_offered: bool = False,
    conditional: bool = False,
) -> Move:
    """``move`` made on ``board`` and ``played`` (its ply and position), as an unsaved row."""
    san = board.san(move)
    board.push(move)
    played.ply += 1
    played.fen = board.fen()
    return Move(
        game=played,
        ply=played.ply,
        san=san,
        uci=move.uci(),
        played_at=now,
        by_id=by_id,
        draw_offered=draw_offered,
        conditional=conditional,
    )


def _store_move(
    played: PlayedGame,
    board: chess.Board,
    move: chess.Move,
    *,
    by_id: int | None,
    now: datetime,
    draw_offered: bool = False,
    conditional: bool = False,
) -> Move:
    made = _next_move(
        played,
        board,
        move,
        by_id=by_id,
        now=now,
        draw_offered=draw_offered,
        conditional=conditional,
    )
    made.save(force_insert=True)
    return made


def _automatic_end(board: chess.Board) -> tuple[str, End] | None:
    """The result a position ends the game with by itself, if it does."""
    if board.is_checkmate():
        return _WINS[Side.BLACK if board.turn == chess.WHITE else Side.WHITE], End.CHECKMATE
    if board.is_stalemate():
        return Result.DRAW, End.STALEMATE
    if board.is_insufficient_material():
        return Result.DRAW, End.INSUFFICIENT_MATERIAL
    if board.is_seventyfive_moves():
        return Result.DRAW, End.SEVENTYFIVE_MOVES
    return None


def replayed_board(played: PlayedGame) -> chess.Board:
    """The game's board with its whole move stack (repetitions need the history)."""
    board = chess.Board()
    for uci in Move.objects.filter(game=played).order_by("ply").values_list("uci", flat=True):
        board.push(chess.Move.from_uci(uci))
    return board


def _user_of(played: PlayedGame, side: Side) -> int | None:
    game = played.game
    return game.white.user_id if side is Side.WHITE else game.black.user_id


def _play_conditionals(
    played: PlayedGame, board: chess.Board, last: Move, now: datetime
) -> list[Move]:
    """Play the answers of the conditional lines the last move matches, one after the other;
    lines it does not match are spent. Returns the moves played."""
    played_moves: list[Move] = []
    while _automatic_end(board) is None:
        mover = Side.of_ply(last.ply)
        waiting = _other(mover)
        lines = list(
            ConditionalLine.objects.filter(
                game=played, side=waiting, after_ply=last.ply - 1, cancelled_at__isnull=True
            ).order_by("-id")
        )
        if not lines:
            break
        match = next((line for line in lines if line.moves and line.moves[0] == last.uci), None)
        spent = [line.pk for line in lines if line is not match]
        ConditionalLine.objects.filter(pk__in=spent).update(cancelled_at=now)
        if match is None or len(match.moves) < 2:
            if match is not None:
                ConditionalLine.objects.filter(pk=match.pk).update(cancelled_at=now)
            break
        answer = chess.Move.from_uci(match.moves[1])
        if answer not in board.legal_moves:  # checked when set; never expected
            ConditionalLine.objects.filter(pk=match.pk).update(cancelled_at=now)
            break
        last = _store_move(
            played, board, answer, by_id=_user_of(played, waiting), now=now, conditional=True
        )
        played_moves.append(last)
        rest = match.moves[2:]
        ConditionalLine.objects.filter(pk=match.pk).update(
            after_ply=last.ply, moves=rest, **({} if rest else {"cancelled_at": now})
        )
        _record(
            Action.PLAY_MOVE,
            None,
            played,
            paged=False,
            ply=last.ply,
            san=last.san,
            side=waiting.value,
            conditional=True,
        )
    return played_moves


def game_pgn(
    played: PlayedGame,
    result: str,
    end: End,
    moves: Sequence[tuple[str, datetime]] | None = None,
) -> str:
    """The game's score as PGN: the tags, each move with its date and time (UTC) in a
    ``[%date YYYY-MM-DDTHH:MM:SSZ]`` comment, and the result. ``moves``: the moves' UCI and
    dates in order, when the caller read them already (the sweep reads many games' at once)."""
    game = played.game
    score = chess.pgn.Game()
    score.headers["Event"] = played.stage.tournament.name
    score.headers["Site"] = "Closed Circle"
    score.headers["Date"] = played.started_at.astimezone(UTC).strftime("%Y.%m.%d")
    score.headers["Round"] = str(game.round or "-")
    score.headers["White"], score.headers["Black"] = game.white.name, game.black.name
    score.headers["Result"] = result
    score.headers["Termination"] = "time forfeit" if end in (End.TIME, End.SILENCE) else "normal"
    node: chess.pgn.GameNode = score
    if moves is None:
        moves = list(
            Move.objects.filter(game=played).order_by("ply").values_list("uci", "played_at")
        )
    for uci, at in moves:
        node = node.add_variation(chess.Move.from_uci(uci))
        node.comment = f"[%date {at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}]"
    return str(score)


def _finish(actor: Actor | None, played: PlayedGame, result: str, end: End, now: datetime) -> None:
    """End the game: the played game stops (no deadline left), the result goes through the
    one result action with the score. In the caller's transaction, ``played`` locked."""
    played.finished_at = now
    played.ended_by = end.value
    played.loses_at = played.next_reminder_at = None
    played.draw_offer_side, played.draw_offer_ply = "", None
    played.version += 1
    played.save()
    ConditionalLine.objects.filter(game=played, cancelled_at__isnull=True).update(cancelled_at=now)
    game = locked_game(played.game_id)
    pgn = checked_game_score(game, result, game_pgn(played, result, end))
    set_result(
        actor,
        game,
        result,
        expected_version=game.version,
        pgn=pgn,
        finished_on=now.astimezone(UTC).date(),
        road=PLAY_ROAD,
    )
    record(
        Action.PLAY_GAME_ENDED,
        actor,
        stage=played.stage,
        group=game.group,
        game=game,
        result=result,
        ended_by=end.value,
        ply=played.ply,
    )
    played.game = game


def _lost_by_time(
    played: PlayedGame, now: datetime, times: GameTimes | None = None
) -> tuple[End, datetime] | None:
    """Whether the side to move has lost on time or by silence by ``now`` (and when)."""
    times = times or game_times(played)
    report = clock_of(played, now, times)
    silence = silence_of(played, now, times)
    losses = []
    if report.loss is not None:
        losses.append((report.loss.at, End.TIME))
    if silence.lost and silence.loses_at is not None:
        losses.append((silence.loses_at, End.SILENCE))
    if not losses:
        return None
    at, end = min(losses)
    return end, at


def _time_ran_out(
    actor: Actor | None, played: PlayedGame, now: datetime, times: GameTimes | None = None
) -> ActionError | None:
    """If the side to move lost on time or by silence, end the game so and return the
    refusal to give once committed."""
    lost = _lost_by_time(played, now, times)
    if lost is None:
        return None
    end, at = lost
    loser = Side.of_ply(played.ply + 1)
    _finish(actor, played, _WINS[_other(loser)], end, at)
    how = _("on time") if end is End.TIME else _("by silence")
    return ActionError(
        ErrorCode.WRONG_STATUS,
        _("%(side)s lost %(how)s at %(at)s UTC; the game is over.")
        % {"side": _side_name(loser), "how": how, "at": at.strftime("%Y-%m-%d %H:%M")},
    )


def make_move(
    *,
    actor: Actor,
    game_id: int,
    move: str,
    after_ply: int,
    offer_draw: bool = False,
    now: datetime | None = None,
) -> Outcome:
    """The player to move makes ``move`` (SAN or UCI) after ply ``after_ply``.

    python-chess is the only authority: an illegal move is refused (INVALID_INPUT); a move
    after another ply than the game's last (a stale page, a doubled submission) is a
    CONFLICT. A standing draw offer of the opponent is declined by moving; ``offer_draw``
    offers one with the move. Conditional answers the move matches are played at once; a
    mate, a stalemate, insufficient material (and the 75-move and fivefold rules) end the
    game. A player whose time or silence ran out loses instead (the refusal says when).
    """
    now = now or timezone.now()
    refusal = None
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        if after_ply != played.ply:
            raise ActionError(
                ErrorCode.CONFLICT,
                _(
                    "The game is at ply %(ply)s, not %(after)s: the move was made already or "
                    "the page is out of date. Reload the game."
                )
                % {"ply": played.ply, "after": after_ply},
                [{"ply": played.ply}],
            )
        to_move = Side.of_ply(played.ply + 1)
        if side is not to_move:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("It is not your move: %(side)s is to move.") % {"side": _side_name(to_move)},
            )
        times = game_times(played)
        now = max(now, times.last_move)
        refusal = _time_ran_out(actor, played, now, times)
        if refusal is None:
            outcome = _move(actor, played, side, move, offer_draw, now, times)
    if refusal is not None:
        raise refusal
    return outcome


def _move(
    actor: Actor,
    played: PlayedGame,
    side: Side,
    text: str,
    offer_draw: bool,
    now: datetime,
    times: GameTimes,
) -> Outcome:
    board = chess.Board(played.fen)
    chosen = parse_move(board, text)
    declined = bool(played.draw_offer_side) and played.draw_offer_side != side
    if declined:
        played.draw_offer_side, played.draw_offer_ply = "", None
    if offer_draw:
        _check_offer(played, side, played.ply + 1)
    made = _next_move(played, board, chosen, by_id=actor.pk, now=now, draw_offered=offer_draw)
    if offer_draw:
        _offer(played, side, made.ply)
    played.reminders_sent = 0
    # A declared long think was for this move.
    setattr(played, f"long_think_{side}", False)
    audit = {
        "ply": made.ply,
        "san": made.san,
        "side": side.value,
        **({"draw_offered": True} if offer_draw else {}),
        **({"draw_declined": True} if declined else {}),
    }
    ended = _automatic_end(board)
    if ended is None and not played.has_conditionals and connection.vendor == "postgresql":
        # The common move: the move, the game's new state and the audit event written in
        # one statement.
        played.version += 1
        refresh_deadlines(played, now, save=False, times=extended(times, now))
        _write_move(actor, played, made, audit)
        _notify_on_commit(played)
        return Outcome(played, [made])
    made.save(force_insert=True)
    _record(
        Action.PLAY_MOVE,
        actor,
        played,
        paged=False,
        **audit,
    )
    moves = [made]
    if ended is None and played.has_conditionals:
        moves += _play_conditionals(played, board, made, now)
        ended = _automatic_end(board)
    if ended is not None:
        _finish(actor, played, ended[0], ended[1], now)
    else:
        played.version += 1
        refresh_deadlines(played, now, save=False, times=extended(times, now, len(moves)))
        played.save(update_fields=MOVE_FIELDS)
        _notify_on_commit(played)
    return Outcome(played, moves)


def _notify_on_commit(played: PlayedGame) -> None:
    """The player now to move hears of it (at once or in the day's digest, as they chose);
    a chain of conditional answers sends one e-mail: the builder writes only if the ply is
    still the game's last."""
    game_id, ply = played.pk, played.ply
    transaction.on_commit(lambda: _queue_move_notice(game_id, ply))


_WRITE_SQL: str | None = None


def _write_sql() -> str:
    global _WRITE_SQL
    if _WRITE_SQL is None:
        from apps.core.models import AuditEvent

        move_columns = ", ".join(f'"{_field(Move, n).column}"' for n in _MOVE_INSERT)
        sets = ", ".join(f'"{_field(PlayedGame, n).column}" = %s' for n in MOVE_FIELDS)
        _WRITE_SQL = f"""
            WITH m AS (
                INSERT INTO {Move._meta.db_table} ({move_columns})
                VALUES ({", ".join(["%s"] * len(_MOVE_INSERT))}) RETURNING id
            ), u AS (
                UPDATE {PlayedGame._meta.db_table} SET {sets} WHERE game_id = %s
            )
            INSERT INTO {AuditEvent._meta.db_table} (created_at, actor_id, action,
                tournament_id, stage_id, group_id, game_id, data)
            VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb)
            RETURNING (SELECT id FROM m)
        """
    return _WRITE_SQL


def _field(model: type[Model], name: str) -> Field:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)
    return field


_MOVE_INSERT = ["game", "ply", "san", "uci", "played_at", "by", "draw_offered", "conditional"]


def _write_move(actor: Actor, played: PlayedGame, made: Move, audit: dict) -> None:
    """Store ``made``, the played game's MOVE_FIELDS and the move's audit event (as
    ``record_unpaged`` writes it) in one statement (PostgreSQL)."""
    move_values = [getattr(made, _field(Move, n).attname) for n in _MOVE_INSERT]
    game_values = [getattr(played, _field(PlayedGame, n).attname) for n in MOVE_FIELDS]
    stage = played.stage
    event = [
        timezone.now(),
        actor.pk if signed_in(actor) else None,
        Action.PLAY_MOVE.value,
        stage.tournament_id,
        stage.pk,
        played.game.group_id,
        played.game_id,
        json.dumps(audit, cls=DjangoJSONEncoder),
    ]
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(), [*move_values, *game_values, played.pk, *event])
        made.pk = cursor.fetchone()[0]
    made._state.adding = False
    made._state.db = connection.alias


def _queue_claim_notice(event_id: int) -> None:
    from . import tasks

    tasks.claim_to_td.delay(event_id)


def _queue_move_notice(game_id: int, ply: int) -> None:
    from . import tasks  # the tasks call sweep and notices, which import this module

    tasks.move_made.delay(game_id, ply)


# What a move changes on the played game.
MOVE_FIELDS = [
    "ply",
    "fen",
    "version",
    "reminders_sent",
    "draw_offer_side",
    "draw_offer_ply",
    "last_offer_move_white",
    "last_offer_move_black",
    "loses_at",
    "next_reminder_at",
    "long_think_white",
    "long_think_black",
]


def offer_draw(*, actor: Actor, game_id: int, now: datetime | None = None) -> PlayedGame:
    """A player offers a draw without a move (a standing offer, until the opponent accepts,
    declines or moves). Not before the stage's ``draw_earliest_move``; one offer per 10
    moves per player."""
    now = now or timezone.now()
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        # The move in hand's number (the offerer's next move if it is theirs).
        _check_offer(played, side, played.ply + 1)
        _offer(played, side, played.ply + 1)
        played.draw_offer_ply = played.ply
        played.version += 1
        played.save()
        _record(
            Action.PLAY_DRAW_OFFERED,
            actor,
            played,
            paged=False,
            ply=played.ply,
            side=side.value,
        )
    return played


def _require_offer_to(played: PlayedGame, side: Side) -> None:
    if not played.draw_offer_side:
        raise ActionError(ErrorCode.WRONG_STATUS, _("No draw offer stands in this game."))
    if played.draw_offer_side == side:
        raise ActionError(
            ErrorCode.WRONG_STATUS, _("The draw offer is yours: your opponent answers it.")
        )


def accept_draw(*, actor: Actor, game_id: int, now: datetime | None = None) -> PlayedGame:
    """The player a draw was offered to accepts it: the game is drawn."""
    now = now or timezone.now()
    refusal = None
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        _require_offer_to(played, side)
        refusal = _time_ran_out(actor, played, now)
        if refusal is None:
            _record(
                Action.PLAY_DRAW_ACCEPTED,
                actor,
                played,
                paged=True,
                ply=played.ply,
                side=side.value,
            )
            _finish(actor, played, Result.DRAW, End.AGREED_DRAW, now)
    if refusal is not None:
        raise refusal
    return played


def decline_draw(*, actor: Actor, game_id: int, now: datetime | None = None) -> PlayedGame:
    """The player a draw was offered to declines it; the game goes on."""
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        _require_offer_to(played, side)
        played.draw_offer_side, played.draw_offer_ply = "", None
        played.version += 1
        played.save()
        _record(
            Action.PLAY_DRAW_DECLINED,
            actor,
            played,
            paged=False,
            ply=played.ply,
            side=side.value,
        )
    return played


def resign(*, actor: Actor, game_id: int, now: datetime | None = None) -> PlayedGame:
    """A player resigns (at any time while the game is played): the opponent wins."""
    now = now or timezone.now()
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        _record(
            Action.PLAY_RESIGNED,
            actor,
            played,
            paged=True,
            ply=played.ply,
            side=side.value,
        )
        _finish(actor, played, _WINS[_other(side)], End.RESIGNATION, now)
    return played


@dataclass
class ClaimOutcome:
    """A claim's answer: granted (the game ended), or sent to the TD (``to_td``)."""

    played: PlayedGame
    granted: bool
    to_td: bool


def claim(
    *, actor: Actor, game_id: int, kind: str, reason: str = "", now: datetime | None = None
) -> ClaimOutcome:
    """A player claims: a draw by threefold repetition, the 50-move rule or insufficient
    material (checked on the game's moves with python-chess; refused when it does not
    hold), a win because the opponent's time or silence ran out (checked with the clock),
    or a tablebase or other claim, which goes to the group's TD (audited, pending)."""
    now = now or timezone.now()
    try:
        wanted = Claim(kind)
    except ValueError:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("%(kind)r is not a claim; claim one of %(kinds)s.")
            % {"kind": kind, "kinds": ", ".join(c.value for c in Claim)},
        ) from None
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        details = {"kind": wanted.value, "side": side.value, "ply": played.ply}
        if wanted in (Claim.TABLEBASE, Claim.OTHER):
            if not reason.strip():
                raise ActionError(
                    ErrorCode.INVALID_INPUT, _("Say what you claim, for the TD to decide.")
                )
            event = _record(
                Action.PLAY_CLAIMED,
                actor,
                played,
                paged=True,
                **details,
                reason=reason.strip(),
                granted=False,
                to_td=True,
            )
            # The group's TD decides it: they hear of it by e-mail once this commits.
            transaction.on_commit(lambda: _queue_claim_notice(event.pk))
            return ClaimOutcome(played, False, True)
        if wanted is Claim.TIME:
            lost = _lost_by_time(played, now)
            if lost is None or Side.of_ply(played.ply + 1) is side:
                raise ActionError(
                    ErrorCode.WRONG_STATUS,
                    _("Your opponent's time has not run out: the claim is refused."),
                )
            end, at = lost
            _record(
                Action.PLAY_CLAIMED,
                actor,
                played,
                paged=True,
                **details,
                granted=True,
                to_td=False,
            )
            _finish(actor, played, _WINS[side], end, at)
            return ClaimOutcome(played, True, False)
        board = replayed_board(played)
        holds = {
            Claim.REPETITION: board.can_claim_threefold_repetition,
            Claim.FIFTY_MOVES: board.can_claim_fifty_moves,
            Claim.INSUFFICIENT_MATERIAL: board.is_insufficient_material,
        }[wanted]()
        if not holds:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                {
                    Claim.REPETITION: _(
                        "The position has not occurred three times (with the same side to "
                        "move): the claim is refused."
                    ),
                    Claim.FIFTY_MOVES: _(
                        "Fifty moves have not passed without a capture or a pawn move: the "
                        "claim is refused."
                    ),
                    Claim.INSUFFICIENT_MATERIAL: _(
                        "There is enough material left for a mate: the claim is refused."
                    ),
                }[wanted],
            )
        _record(
            Action.PLAY_CLAIMED,
            actor,
            played,
            paged=True,
            **details,
            granted=True,
            to_td=False,
        )
        _finish(actor, played, Result.DRAW, DRAW_CLAIMS[wanted], now)
    return ClaimOutcome(played, True, False)


def add_days(
    *,
    actor: Actor,
    game_id: int,
    side: str,
    days: int,
    reason: str,
    now: datetime | None = None,
) -> PlayedGame:
    """The group's TD (or an organizer) adds days to a player's clock, with a reason."""
    now = now or timezone.now()
    reason = reason.strip()
    with transaction.atomic():
        played = locked_played(game_id)
        if not can_enter_results(actor, played.game.group):
            raise ActionError(
                ErrorCode.PERMISSION_DENIED,
                _("Only the group's TD and the organizers may add days to a clock."),
            )
        require_playing(played)
        if side not in (Side.WHITE, Side.BLACK):
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                _("Say whose clock: white or black, not %(side)r.") % {"side": side},
            )
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MOST_DAYS_ADDED:
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                _("Add from 1 to %(most)s days.") % {"most": MOST_DAYS_ADDED},
            )
        if not reason:
            raise ActionError(ErrorCode.INVALID_INPUT, _("Give a reason for adding days."))
        field = f"extra_days_{Side(side)}"
        setattr(played, field, getattr(played, field) + days)
        played.version += 1
        played.save()
        refresh_deadlines(played, now)
        _record(
            Action.PLAY_DAYS_ADDED,
            actor,
            played,
            paged=False,
            side=side,
            days=days,
            reason=reason,
        )
    return played


def declare_long_think(*, actor: Actor, game_id: int, now: datetime | None = None) -> PlayedGame:
    """The player to move declares, before their silence reaches the stage's
    ``silence_days``, that they will use more than that on this move: the loss by silence is
    lifted for the move in hand (the reminders still come; the clock still decides). The
    declaration ends with the player's move. Refused when it is not the player's move, when
    they declared already, and when the silence limit has passed (the game is then lost)."""
    now = now or timezone.now()
    refusal = None
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        if Side.of_ply(played.ply + 1) is not side:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("A long think is declared for your own move: it is not your move."),
            )
        field = f"long_think_{side}"
        if getattr(played, field):
            raise ActionError(
                ErrorCode.WRONG_STATUS, _("You declared a long think for this move already.")
            )
        times = game_times(played)
        refusal = _time_ran_out(actor, played, max(now, times.last_move), times)
        if refusal is None:
            setattr(played, field, True)
            played.version += 1
            refresh_deadlines(played, now, save=False, times=times)
            played.save(update_fields=[field, "version", "loses_at", "next_reminder_at"])
            _record(
                Action.PLAY_LONG_THINK_DECLARED,
                actor,
                played,
                paged=False,
                ply=played.ply,
                side=side.value,
                silence_days=played.stage.silence_days,
            )
    if refusal is not None:
        raise refusal
    return played


def set_conditionals(
    *, actor: Actor, game_id: int, after_ply: int, moves: list[str]
) -> ConditionalLine:
    """The player who just moved leaves an "if X then Y …" line: ``moves`` alternate the
    opponent's expected moves and the player's answers (SAN or UCI), from the position after
    ``after_ply`` (the game's last ply, the opponent to move). Each is checked legal; a line
    whose first move another of the player's lines already answers is refused."""
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        require_playing(played)
        if after_ply != played.ply:
            raise ActionError(
                ErrorCode.CONFLICT,
                _("The game is at ply %(ply)s, not %(after)s: reload it.")
                % {"ply": played.ply, "after": after_ply},
            )
        if Side.of_ply(played.ply + 1) is side:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("It is your move: conditional moves are left after your own move."),
            )
        if not isinstance(moves, list) or len(moves) < 2:
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                _('Give at least your opponent\'s move and your answer, e.g. ["Nf3", "Nc6"].'),
            )
        board = chess.Board(played.fen)
        line = []
        for text in moves:
            if not isinstance(text, str):
                raise ActionError(ErrorCode.INVALID_INPUT, _("Each move must be a text."))
            move = parse_move(board, text)
            line.append(move.uci())
            board.push(move)
        mine = ConditionalLine.objects.filter(
            game=played, side=side.value, after_ply=after_ply, cancelled_at__isnull=True
        )
        if any(other.moves and other.moves[0] == line[0] for other in mine):
            raise ActionError(
                ErrorCode.CONFLICT,
                _("You already answer %(move)s; cancel that line first.") % {"move": moves[0]},
            )
        created = ConditionalLine.objects.create(
            game=played, side=side.value, after_ply=after_ply, moves=line
        )
        _record(
            Action.PLAY_CONDITIONALS_SET,
            actor,
            played,
            paged=False,
            side=side.value,
            after_ply=after_ply,
            moves=line,
        )
    return created


def cancel_conditionals(
    *, actor: Actor, game_id: int, line_id: int | None = None, now: datetime | None = None
) -> int:
    """The player withdraws their conditional lines (one, or all); returns how many."""
    now = now or timezone.now()
    with transaction.atomic():
        played = locked_played(game_id)
        side = require_player(actor, played)
        lines = ConditionalLine.objects.filter(
            game=played, side=side.value, cancelled_at__isnull=True
        )
        if line_id is not None:
            lines = lines.filter(pk=line_id)
        cancelled = lines.update(cancelled_at=now)
        if cancelled:
            _record(
                Action.PLAY_CONDITIONALS_CANCELLED,
                actor,
                played,
                paged=False,
                side=side.value,
                lines=cancelled,
            )
    return cancelled


def active_conditionals(played: PlayedGame, side: Side) -> list[ConditionalLine]:
    return list(
        ConditionalLine.objects.filter(
            game=played, side=side.value, cancelled_at__isnull=True
        ).order_by("id")
    )


def end_if_time_ran_out(*, game_id: int, now: datetime | None = None) -> End | None:
    """The system's check of one game (for the sweep that runs the clock by itself): if the
    side to move lost on time or by silence by ``now``, the game ends so, at the instant it
    happened, and the answer is how (``End.TIME`` or ``End.SILENCE``); else its deadlines
    are recomputed and the answer is None. Idempotent: a finished game is left alone."""
    now = now or timezone.now()
    with transaction.atomic():
        played = locked_played(game_id)
        if played.finished_at is not None or played.game.result:
            return None
        times = game_times(played)
        lost = _lost_by_time(played, max(now, times.last_move), times)
        if lost is None:
            refresh_deadlines(played, now, times=times)
            return None
        end, at = lost
        loser = Side.of_ply(played.ply + 1)
        _finish(None, played, _WINS[_other(loser)], end, at)
    return end
