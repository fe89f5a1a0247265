"""Helpers for the sweep's and the leave's tests on the play world (``tests/worlds/play.py``):
moves made straight in the tables at given dates (the move action has tests of its own), and
the game's sweep instants stored as the play actions store them (``refresh_deadlines``)."""

from __future__ import annotations

from datetime import UTC, datetime

import chess
import pytest

from apps.play.clocking import refresh_deadlines
from apps.play.models import Move, PlayedGame
from tests.worlds.play import PlayWorld, build_play_world

# The knights go out and back: legal for as many plies as a test needs (Nf3 Nf6 Ng1 Ng8 ...).
SHUFFLE = ("g1f3", "g8f6", "f3g1", "f6g8")


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.fixture
def world(db, django_capture_on_commit_callbacks) -> PlayWorld:
    """The play world with only its game 1 played here (the other games' clocks would run
    out at the same instants and blur what each test counts)."""
    built = build_play_world(django_capture_on_commit_callbacks)
    PlayedGame.objects.exclude(pk=built.game.pk).delete()
    return built


def moved(world: PlayWorld, moves: list[datetime], played: PlayedGame | None = None) -> PlayedGame:
    """The world's game (or ``played``) with moves made at ``moves`` (the sweep reads only
    their dates), its instants stored as of the last one."""
    played = played or world.fresh()
    board = chess.Board(played.fen)
    made = []
    for ply, when in enumerate(moves, played.ply + 1):
        move = chess.Move.from_uci(SHUFFLE[(ply - 1) % len(SHUFFLE)])
        made.append(Move(game=played, ply=ply, san=board.san(move), uci=move.uci(), played_at=when))
        board.push(move)
    Move.objects.bulk_create(made)
    PlayedGame.objects.filter(pk=played.pk).update(ply=played.ply + len(moves), fen=board.fen())
    return restamp(world, max(moves, default=played.started_at), played.pk)


def restamp(world: PlayWorld, now: datetime, pk: int | None = None) -> PlayedGame:
    """Store the game's sweep instants as of ``now``, as a move or a leave does."""
    played = PlayedGame.objects.select_related(
        "stage__tournament", "game__group", "game__white", "game__black"
    ).get(pk=pk or world.game.pk)
    return refresh_deadlines(played, now)
