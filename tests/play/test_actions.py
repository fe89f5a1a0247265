"""The actions on a game played here (apps.play.services): moves, draws, resignation,
claims, the TD's days, conditional moves; the end of a game reaches the result and the
standings."""

from __future__ import annotations

from datetime import timedelta

import chess.pgn
import pytest

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.groups.models import Game
from apps.play.models import ConditionalLine, Move, PlayedGame
from apps.play.services import (
    accept_draw,
    add_days,
    cancel_conditionals,
    claim,
    decline_draw,
    make_move,
    offer_draw,
    resign,
    set_conditionals,
)
from apps.standings.models import GroupStanding
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks, draw_earliest_move=1)


def play(world, moves, start_ply=0, at=START + HOUR):
    """Play ``moves`` alternately from ``start_ply``, one hour apart."""
    users = (world.users["white"], world.users["black"])
    for ply, move in enumerate(moves, start_ply):
        make_move(actor=users[ply % 2], game_id=world.game.pk, move=move, after_ply=ply, now=at)
        at += HOUR
    return at


def refused(code, call, **kwargs):
    with pytest.raises(ActionError) as error:
        call(**kwargs)
    assert error.value.code == code, error.value.message
    return error.value.message


def test_a_legal_move_is_stored_in_san_and_uci_and_the_clock_moves_on(world):
    make_move(
        actor=world.users["white"], game_id=world.game.pk, move="g1f3", after_ply=0, now=START
    )
    move = Move.objects.get(game_id=world.game.pk)
    assert (move.ply, move.san, move.uci, move.played_at) == (1, "Nf3", "g1f3", START)
    played = world.fresh()
    assert played.ply == 1
    assert played.fen.startswith("rnbqkbnr/pppppppp/8/8/8/5N2/")
    # Black is to move from START: lost after 36 days, first reminder after 14.
    assert played.loses_at == START + timedelta(days=36)
    assert played.next_reminder_at == START + timedelta(days=14)
    assert AuditEvent.objects.filter(action=Action.PLAY_MOVE, game_id=world.game.pk).count() == 1


def test_an_illegal_move_is_refused_with_a_sentence_and_nothing_changes(world):
    message = refused(
        ErrorCode.INVALID_INPUT,
        make_move,
        actor=world.users["white"],
        game_id=world.game.pk,
        move="Ke2",
        after_ply=0,
        now=START,
    )
    assert "Ke2 is not a legal move for White" in message
    refused(
        ErrorCode.INVALID_INPUT,
        make_move,
        actor=world.users["white"],
        game_id=world.game.pk,
        move="zz9",
        after_ply=0,
        now=START,
    )
    assert world.fresh().ply == 0 and not Move.objects.exists()


def test_a_stale_or_doubled_move_is_a_conflict(world):
    play(world, ["e4"])
    message = refused(
        ErrorCode.CONFLICT,
        make_move,
        actor=world.users["white"],
        game_id=world.game.pk,
        move="e4",
        after_ply=0,
        now=START + 2 * HOUR,
    )
    assert "at ply 1, not 0" in message
    assert Move.objects.count() == 1


def test_only_the_player_to_move_moves(world):
    refused(
        ErrorCode.WRONG_STATUS,
        make_move,
        actor=world.users["black"],
        game_id=world.game.pk,
        move="e5",
        after_ply=0,
    )
    for who in ("stranger", "td", "organizer", "anonymous"):
        refused(
            ErrorCode.PERMISSION_DENIED,
            make_move,
            actor=world.users[who],
            game_id=world.game.pk,
            move="e4",
            after_ply=0,
        )


def test_mate_ends_the_game_and_the_result_reaches_the_standings(
    world, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        play(world, FOOLS_MATE)
    game = Game.objects.get(pk=world.game.pk)
    assert game.result == "0-1"
    played = world.fresh()
    assert played.ended_by == "checkmate" and played.finished_at is not None
    assert played.loses_at is None and played.next_reminder_at is None
    score = chess.pgn.read_game(__import__("io").StringIO(game.pgn))
    assert [m.uci() for m in score.mainline_moves()] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert "[%date 2027-01-04T11:00:00Z]" in game.pgn
    assert score.headers["Result"] == "0-1"
    assert AuditEvent.objects.filter(action=Action.RESULT_ENTERED, game_id=game.pk).exists()
    black = GroupStanding.objects.get(group=world.group, entrant_id=game.black_id)
    assert black.points == 1
    refused(
        ErrorCode.WRONG_STATUS,
        make_move,
        actor=world.users["white"],
        game_id=world.game.pk,
        move="e4",
        after_ply=4,
    )


def test_stalemate_and_insufficient_material_end_the_game_drawn(world):
    # Reach a stalemate quickly (Sam Loyd's ten-move stalemate).
    loyd = "e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6"
    play(world, loyd.split())
    assert Game.objects.get(pk=world.game.pk).result == "1/2-1/2"
    assert world.fresh().ended_by == "stalemate"


def test_resignation_gives_the_opponent_the_win(world):
    play(world, ["e4"])
    resign(actor=world.users["white"], game_id=world.game.pk, now=START + 5 * HOUR)
    assert Game.objects.get(pk=world.game.pk).result == "0-1"
    assert world.fresh().ended_by == "resignation"
    refused(ErrorCode.PERMISSION_DENIED, resign, actor=world.users["td"], game_id=world.game.pk)


def test_a_draw_offer_is_declined_then_a_new_one_accepted(world):
    at = play(world, ["e4", "e5"])
    offer_draw(actor=world.users["white"], game_id=world.game.pk, now=at)
    refused(ErrorCode.WRONG_STATUS, accept_draw, actor=world.users["white"], game_id=world.game.pk)
    decline_draw(actor=world.users["black"], game_id=world.game.pk, now=at)
    assert world.fresh().draw_offer_side == ""
    # One offer per 10 moves: White offered at move 2.
    message = refused(
        ErrorCode.WRONG_STATUS, offer_draw, actor=world.users["white"], game_id=world.game.pk
    )
    assert "next may come at move 12" in message
    # Black offers with a move; White accepts.
    make_move(actor=world.users["white"], game_id=world.game.pk, move="Nf3", after_ply=2, now=at)
    make_move(
        actor=world.users["black"],
        game_id=world.game.pk,
        move="Nc6",
        after_ply=3,
        offer_draw=True,
        now=at,
    )
    assert world.fresh().draw_offer_side == "black"
    accept_draw(actor=world.users["white"], game_id=world.game.pk, now=at + HOUR)
    assert Game.objects.get(pk=world.game.pk).result == "1/2-1/2"
    assert world.fresh().ended_by == "agreed_draw"


def test_moving_declines_the_opponents_offer(world):
    at = play(world, ["e4"])
    offer_draw(actor=world.users["white"], game_id=world.game.pk, now=at)
    play(world, ["e5"], start_ply=1, at=at)
    assert world.fresh().draw_offer_side == ""


def test_no_draw_before_the_stages_earliest_move(world):
    world.stage.draw_earliest_move = 25
    world.stage.save()
    message = refused(
        ErrorCode.WRONG_STATUS, offer_draw, actor=world.users["white"], game_id=world.game.pk
    )
    assert "from move 25 on; this is move 1" in message


def test_a_repetition_claim_is_checked_on_the_moves(world):
    at = play(world, ["Nf3", "Nf6", "Ng1", "Ng8"])
    refused(
        ErrorCode.WRONG_STATUS,
        claim,
        actor=world.users["white"],
        game_id=world.game.pk,
        kind="repetition",
        now=at,
    )
    at = play(world, ["Nf3", "Nf6", "Ng1", "Ng8"], start_ply=4, at=at)
    outcome = claim(actor=world.users["white"], game_id=world.game.pk, kind="repetition", now=at)
    assert outcome.granted
    assert Game.objects.get(pk=world.game.pk).result == "1/2-1/2"
    assert world.fresh().ended_by == "claimed_repetition"


def test_a_claim_of_an_unknown_kind_or_a_tablebase_claim(world):
    refused(
        ErrorCode.INVALID_INPUT,
        claim,
        actor=world.users["white"],
        game_id=world.game.pk,
        kind="boredom",
    )
    outcome = claim(
        actor=world.users["white"],
        game_id=world.game.pk,
        kind="tablebase",
        reason="KRK is a win",
        now=START,
    )
    assert (outcome.granted, outcome.to_td) == (False, True)
    event = AuditEvent.objects.get(action=Action.PLAY_CLAIMED)
    assert event.data["to_td"] and event.data["reason"] == "KRK is a win"
    assert Game.objects.get(pk=world.game.pk).result == ""


def test_a_win_on_time_is_claimed_once_the_opponents_time_ran_out(world):
    play(world, ["e4"], at=START)
    refused(
        ErrorCode.WRONG_STATUS,
        claim,
        actor=world.users["white"],
        game_id=world.game.pk,
        kind="time",
        now=START + timedelta(days=35),
    )
    claim(
        actor=world.users["white"],
        game_id=world.game.pk,
        kind="time",
        now=START + timedelta(days=37),
    )
    played = world.fresh()
    assert Game.objects.get(pk=world.game.pk).result == "1-0"
    # Silence (40 days) would come later than the clock (36 days with doubling).
    assert played.ended_by == "time"
    assert played.finished_at == START + timedelta(days=36)


def test_a_move_after_the_time_ran_out_loses_instead(world):
    play(world, ["e4"], at=START)
    message = refused(
        ErrorCode.WRONG_STATUS,
        make_move,
        actor=world.users["black"],
        game_id=world.game.pk,
        move="e5",
        after_ply=1,
        now=START + timedelta(days=36),
    )
    assert "Black lost on time at 2027-02-09 10:00 UTC" in message
    assert Game.objects.get(pk=world.game.pk).result == "1-0"
    assert Move.objects.count() == 1


def test_the_td_adds_days_with_a_reason(world):
    refused(
        ErrorCode.PERMISSION_DENIED,
        add_days,
        actor=world.users["white"],
        game_id=world.game.pk,
        side="white",
        days=5,
        reason="x",
    )
    refused(
        ErrorCode.INVALID_INPUT,
        add_days,
        actor=world.users["td"],
        game_id=world.game.pk,
        side="white",
        days=5,
        reason=" ",
    )
    add_days(
        actor=world.users["td"],
        game_id=world.game.pk,
        side="white",
        days=10,
        reason="postal strike",
        now=START,
    )
    played = world.fresh()
    assert played.extra_days_white == 10
    assert played.loses_at == START + timedelta(days=41)
    event = AuditEvent.objects.get(action=Action.PLAY_DAYS_ADDED)
    assert event.data == {"side": "white", "days": 10, "reason": "postal strike"}


def test_conditional_moves_are_played_when_the_opponents_move_matches(world):
    at = play(world, ["e4"])
    set_conditionals(
        actor=world.users["white"],
        game_id=world.game.pk,
        after_ply=1,
        moves=["e5", "Nf3", "Nc6", "Bb5"],
    )
    set_conditionals(
        actor=world.users["white"], game_id=world.game.pk, after_ply=1, moves=["c5", "Nf3"]
    )
    refused(
        ErrorCode.CONFLICT,
        set_conditionals,
        actor=world.users["white"],
        game_id=world.game.pk,
        after_ply=1,
        moves=["e5", "d4"],
    )
    refused(
        ErrorCode.INVALID_INPUT,
        set_conditionals,
        actor=world.users["white"],
        game_id=world.game.pk,
        after_ply=1,
        moves=["e5", "Ke3"],
    )
    outcome = make_move(
        actor=world.users["black"], game_id=world.game.pk, move="e5", after_ply=1, now=at
    )
    assert [m.san for m in outcome.moves] == ["e5", "Nf3"]
    assert outcome.moves[1].conditional
    assert world.fresh().ply == 3
    # The c5 line is spent; the e5 line waits for Nc6.
    outcome = make_move(
        actor=world.users["black"], game_id=world.game.pk, move="Nc6", after_ply=3, now=at
    )
    assert [m.san for m in outcome.moves] == ["Nc6", "Bb5"]
    assert not ConditionalLine.objects.filter(cancelled_at__isnull=True).exists()


def test_a_line_the_opponent_does_not_follow_is_spent_and_lines_can_be_cancelled(world):
    at = play(world, ["e4"])
    set_conditionals(
        actor=world.users["white"], game_id=world.game.pk, after_ply=1, moves=["e5", "Nf3"]
    )
    assert cancel_conditionals(actor=world.users["white"], game_id=world.game.pk) == 1
    set_conditionals(
        actor=world.users["white"], game_id=world.game.pk, after_ply=1, moves=["e5", "Nf3"]
    )
    outcome = make_move(
        actor=world.users["black"], game_id=world.game.pk, move="d5", after_ply=1, now=at
    )
    assert [m.san for m in outcome.moves] == ["d5"]
    assert not ConditionalLine.objects.filter(cancelled_at__isnull=True).exists()
    assert PlayedGame.objects.get(pk=world.game.pk).ply == 2
