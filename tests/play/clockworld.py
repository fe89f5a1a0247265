"""Games played on the server for the sweep's and the leave's tests, made straight in the
tables (the play actions have tests of their own): a ``PlayedGame`` with its moves' dates, its
sweep instants computed by the pure clock as the play actions store them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest

from apps.clock import GameTimes, MovesInDays, clock_report, silence_report
from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.play.models import Move, PlayedGame
from apps.play.sweep import leave_of_users
from tests.worlds.published import World, build_world, make_user

if TYPE_CHECKING:
    from django.contrib.auth.models import User

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# Moves enough for the tests' plies (the sweep reads only their dates).
LINE = [f"m{ply}" for ply in range(1, 61)]


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def play(game: Game, start: datetime, moves: list[datetime] = (), **fields) -> PlayedGame:
    """``game`` played here since ``start``, its moves made at ``moves``."""
    played = PlayedGame.objects.create(
        game=game,
        stage_id=game.group.stage_id,
        started_at=start,
        ply=len(moves),
        fen=START_FEN,
        **fields,
    )
    Move.objects.bulk_create(
        Move(game=played, ply=ply, san=LINE[ply - 1], uci="", played_at=when)
        for ply, when in enumerate(moves, 1)
    )
    restamp(played, start)
    return played


def times(played: PlayedGame) -> GameTimes:
    game = Game.objects.select_related("white", "black").get(pk=played.pk)
    moves = tuple(played.moves.order_by("ply").values_list("played_at", flat=True))
    white, black = game.white.user_id, game.black.user_id
    leave = leave_of_users({u for u in (white, black) if u}, since=played.started_at.date())
    return GameTimes(
        played.started_at,
        moves,
        tuple(leave.get(white, [])) if white else (),
        tuple(leave.get(black, [])) if black else (),
    )


def restamp(played: PlayedGame, now: datetime) -> PlayedGame:
    """Store the game's sweep instants as of ``now`` (10 moves in 50 days, doubling after
    20), as a move or a leave does."""
    game = times(played)
    now = max(now, game.last_move)
    played.loses_at = clock_report(MovesInDays(), game, now).runs_out_at
    played.next_reminder_at = silence_report(game, now).next_due_at
    played.save(update_fields=["loses_at", "next_reminder_at"])
    return played


@dataclass
class ClockWorld:
    """The published world's player's first game, both of its players with accounts: ``me``
    (the player) and ``them`` (the opponent, a new account)."""

    world: World
    game: Game
    me: User
    them: User

    @property
    def white(self) -> User:
        return self.me if self.game.white_id == self.world.player_entrant.pk else self.them

    @property
    def black(self) -> User:
        return self.them if self.white == self.me else self.me


@pytest.fixture
def clock_world(db, django_capture_on_commit_callbacks) -> ClockWorld:
    world = build_world(django_capture_on_commit_callbacks)
    game = Game.objects.select_related("group__stage__tournament", "white", "black").get(
        pk=world.player_game.pk
    )
    them = make_user("opponent")
    opponent = game.black if game.white_id == world.player_entrant.pk else game.white
    Entrant.objects.filter(pk=opponent.pk).update(user=them)
    game.refresh_from_db()
    return ClockWorld(world, game, world.users["player"], them)
