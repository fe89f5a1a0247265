"""The board page of a game played on this server (``…/games/M/play/``): what each visitor
sees, and the forms that work without JavaScript."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import chess
import pytest
from django.urls import reverse

from apps.play.models import Move, PlayedGame
from apps.stages.models import Stage
from tests.worlds.play import START, build_play_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks)


def board_url(world) -> str:
    return reverse(
        "game-play",
        args=[world.tournament.slug, world.stage.order, world.group.number, world.game.number],
    )


@pytest.fixture(autouse=True)
def now():
    with mock.patch("django.utils.timezone.now", return_value=START):
        yield


def test_white_sees_the_board_the_clocks_and_the_move_form(client, world):
    client.force_login(world.users["white"])
    page = client.get(board_url(world)).content.decode()
    assert "Your move." in page
    assert 'name="move"' in page and 'name="after_ply" value="0"' in page
    assert "50 days left" in page
    assert world.game.white.name in page and world.game.black.name in page


def test_black_waits_and_the_public_sees_no_forms(client, world):
    client.force_login(world.users["black"])
    page = client.get(board_url(world)).content.decode()
    assert "White to move." in page and 'name="move"' not in page
    client.logout()
    page = client.get(board_url(world)).content.decode()
    assert "White to move." in page and "csrfmiddlewaretoken" not in page.split("data-play")[1]


def game_page_url(world) -> str:
    return reverse(
        "game",
        args=[world.tournament.slug, world.stage.order, world.group.number, world.game.number],
    )


def test_the_game_page_and_my_games_lead_to_the_board_instead_of_a_report(client, world):
    client.force_login(world.users["white"])
    page = client.get(game_page_url(world)).content.decode()
    assert f'href="{board_url(world)}"' in page and "Play on the board" in page
    assert 'id="report"' not in page
    page = client.get(reverse("me")).content.decode()
    assert f'href="{board_url(world)}"' in page


def add_moves(world, sans: list[str]) -> None:
    """Moves stored as the server would have accepted them (the page only reads them)."""
    board = chess.Board()
    for ply, san in enumerate(sans, start=1):
        move = board.parse_san(san)
        Move.objects.create(
            game_id=world.game.pk,
            ply=ply,
            san=san,
            uci=move.uci(),
            played_at=START + timedelta(days=ply),
        )
        board.push(move)
    PlayedGame.objects.filter(pk=world.game.pk).update(ply=len(sans), fen=board.fen())


OPENING = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def test_the_players_see_every_move_with_its_date(client, world):
    add_moves(world, OPENING)
    client.force_login(world.users["black"])
    page = client.get(board_url(world)).content.decode()
    for san in OPENING:
        assert f'<span class="play-san">{san}</span>' in page or f"… {san}<" in page
    assert "2027-01-10 10:00" in page  # the sixth move, six days after the start
    assert "Black to move." not in page and "Your move." not in page  # White's turn
    assert "White to move." in page


@pytest.mark.parametrize(
    ("visibility", "shown"),
    [("finished", 0), ("delayed", 2), ("players", None)],
)
def test_others_see_the_moves_as_the_stage_allows(client, world, visibility, shown):
    Stage.objects.filter(pk=world.stage.pk).update(
        game_visibility=visibility, visibility_delay_moves=2
    )
    add_moves(world, OPENING)
    client.force_login(world.users["stranger"])
    response = client.get(board_url(world))
    if shown is None:
        assert response.status_code == 404
        return
    page = response.content.decode()
    assert page.count('class="play-move"') == shown
    assert 'name="move"' not in page
    # The group's TD sees every move.
    client.force_login(world.users["td"])
    assert client.get(board_url(world)).content.decode().count('class="play-move"') == 6


def test_a_game_not_played_here_has_no_board(client, world):
    Stage.objects.filter(pk=world.stage.pk).update(play_on_server=False)
    PlayedGame.objects.filter(pk=world.game.pk).delete()
    assert client.get(board_url(world)).status_code == 404
    assert "Play on the board" not in client.get(game_page_url(world)).content.decode()


def action_url(world, name: str) -> str:
    return reverse(
        f"game-play-{name}",
        args=[world.tournament.slug, world.stage.order, world.group.number, world.game.number],
    )


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_without_javascript_the_forms_play_a_game_to_mate(client, world):
    white, black = world.users["white"], world.users["black"]
    for user, move, ply in ((white, "f3", 0), (black, "e7e5", 1), (white, "g4", 2)):
        client.force_login(user)
        response = client.post(
            action_url(world, "move"), {"move": move, "after_ply": ply}, follow=True
        )
        assert response.redirect_chain[-1][0] == board_url(world)
        assert messages_of(response) == ["Moved."]
    client.force_login(black)
    response = client.post(action_url(world, "move"), {"move": "Qh4", "after_ply": 3}, follow=True)
    page = response.content.decode()
    assert "The game is over:" in page and "0-1" in page and "checkmate" in page
    assert 'name="move"' not in page and "Resign" not in page
    world.game.refresh_from_db()
    assert world.game.result == "0-1"
    assert list(Move.objects.filter(game_id=world.game.pk).values_list("san", flat=True)) == [
        "f3",
        "e5",
        "g4",
        "Qh4#",
    ]


def test_a_stale_or_illegal_move_is_refused_with_its_sentence_and_nothing_changes(client, world):
    client.force_login(world.users["white"])
    client.post(action_url(world, "move"), {"move": "e4", "after_ply": 0}, follow=True)
    client.force_login(world.users["black"])
    stale = client.post(action_url(world, "move"), {"move": "e5", "after_ply": 0}, follow=True)
    assert "not 0" in messages_of(stale)[0] and "Reload the game" in messages_of(stale)[0]
    illegal = client.post(action_url(world, "move"), {"move": "e4", "after_ply": 1}, follow=True)
    assert "not a legal move" in messages_of(illegal)[0]
    assert Move.objects.filter(game_id=world.game.pk).count() == 1


def test_only_the_players_act_and_the_public_signs_in_first(client, world):
    client.force_login(world.users["stranger"])
    assert client.post(action_url(world, "move"), {"move": "e4", "after_ply": 0}).status_code == 403
    assert client.post(action_url(world, "resign")).status_code == 403
    client.logout()
    assert client.post(action_url(world, "resign")).status_code == 302
    assert not Move.objects.filter(game_id=world.game.pk).exists()
    world.game.refresh_from_db()
    assert world.game.result == ""


def test_no_draw_is_offered_before_the_stages_earliest_move(client, world):
    client.force_login(world.users["white"])
    assert "Offer a draw" not in client.get(board_url(world)).content.decode()
    refused = client.post(action_url(world, "draw-offer"), follow=True)
    assert messages_of(refused) == ["A draw may be offered from move 25 on; this is move 1."]


def test_a_draw_offered_declined_offered_again_and_accepted(
    client, django_capture_on_commit_callbacks
):
    world = build_play_world(django_capture_on_commit_callbacks, draw_earliest_move=1)
    white, black = world.users["white"], world.users["black"]
    client.force_login(white)
    assert messages_of(client.post(action_url(world, "draw-offer"), follow=True)) == [
        "Draw offered."
    ]
    client.force_login(black)
    page = client.get(board_url(world)).content.decode()
    assert "Your opponent offers a draw." in page and "Accept the draw" in page
    assert messages_of(client.post(action_url(world, "draw-decline"), follow=True)) == [
        "Draw declined."
    ]
    # Black moves with an offer of their own; White accepts it.
    client.force_login(white)
    client.post(action_url(world, "move"), {"move": "e4", "after_ply": 0}, follow=True)
    client.force_login(black)
    moved = client.post(
        action_url(world, "move"), {"move": "e5", "after_ply": 1, "offer_draw": "on"}, follow=True
    )
    assert "You offered a draw" in moved.content.decode()
    client.force_login(white)
    response = client.post(action_url(world, "draw-accept"), follow=True)
    assert "draw agreed" in response.content.decode()
    world.game.refresh_from_db()
    assert world.game.result == "1/2-1/2"


def test_resigning_conditional_moves_and_a_claim_for_the_td(client, world):
    white, black = world.users["white"], world.users["black"]
    client.force_login(white)
    client.post(action_url(world, "move"), {"move": "e4", "after_ply": 0}, follow=True)
    # White leaves 1… e5 2. Nf3 and cancels it; then claims something for the TD.
    response = client.post(
        action_url(world, "conditionals"), {"moves": "1... e5 2. Nf3", "after_ply": 1}, follow=True
    )
    assert messages_of(response) == ["Conditional moves saved."]
    assert "<code>e5 Nf3</code>" in response.content.decode()
    response = client.post(action_url(world, "conditionals-cancel"), follow=True)
    assert messages_of(response) == ["Conditional moves cancelled."]
    assert "<code>e5 Nf3</code>" not in response.content.decode()
    response = client.post(
        action_url(world, "claim"), {"kind": "other", "reason": "matrix"}, follow=True
    )
    assert messages_of(response) == ["Claim sent."]
    client.force_login(black)
    response = client.post(action_url(world, "resign"), follow=True)
    assert "resignation" in response.content.decode()
    world.game.refresh_from_db()
    assert world.game.result == "1-0"


def test_the_td_adds_days_to_a_clock_with_a_reason_and_the_players_cannot(client, world):
    client.force_login(world.users["white"])
    page = client.get(board_url(world)).content.decode()
    assert "Add days to a clock" not in page
    data = {"side": "black", "days": 5, "reason": "a postal strike"}
    assert client.post(action_url(world, "add-days"), data).status_code == 403
    client.force_login(world.users["td"])
    assert "Add days to a clock" in client.get(board_url(world)).content.decode()
    missing = client.post(action_url(world, "add-days"), {**data, "reason": ""}, follow=True)
    assert messages_of(missing) == ["This field is required."]
    response = client.post(action_url(world, "add-days"), data, follow=True)
    assert messages_of(response) == ["Days added."]
    assert "55 days left" in response.content.decode()  # Black's 50, and 5
    assert PlayedGame.objects.get(pk=world.game.pk).extra_days_black == 5
