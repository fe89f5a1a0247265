"""The demo shows tournaments in every state (the 3,099-entrant Demo Cup runs in `make run`),
players on the site among them: a round robin played on this server with moves made, and a
stage open to players with requests in every state; and a Swiss stage played round by round.
Each part's pages answer, to the public where they are public and to the demo's player where
they are the player's."""

import io
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from apps.demo import tournaments
from apps.demo.tournaments import DEMO_PLAYER, board_url
from apps.groups.models import Game, SwissBye
from apps.office import demo
from apps.office.swiss.state import swiss_state
from apps.play.models import Move, PlayedGame
from apps.players.models import Registration
from apps.stages.models import Stage, Tournament
from apps.standings.models import GroupStanding

pytestmark = pytest.mark.django_db(transaction=True)


def quiet(_line: str) -> None:
    pass


def test_demo_masters_has_a_closed_preliminary_and_a_round_robin_final_in_play():
    cup = demo.create_demo_masters(log=quiet)

    preliminary, final = cup.stages.order_by("order")
    assert preliminary.status == Stage.Status.CLOSED
    assert final.status == Stage.Status.PUBLISHED and final.format == Stage.Format.ROUND_ROBIN
    assert [g.size for g in final.groups.all()] == [11]
    assert GroupStanding.objects.filter(group__stage=final).count() == 11


def test_the_demo_command_creates_only_the_missing_demos_and_says_where_to_look(monkeypatch):
    # The command makes every demo, in this order.
    assert list(tournaments.DEMOS) == [
        "demo-cup",
        "demo-masters",
        "demo-open-2027",
        "demo-club-2027",
        "demo-swiss-2027",
    ]
    made = []
    monkeypatch.setattr(
        tournaments,
        "DEMOS",
        {
            "demo-open-2027": lambda log: (
                made.append("open") or tournaments.create_demo_open_to_players(log)
            ),
            "demo-masters": lambda log: made.append("masters"),
            "demo-club-2027": lambda log: made.append("club") or tournaments.create_demo_club(log),
            "demo-swiss-2027": lambda log: (
                made.append("swiss") or tournaments.create_demo_swiss(log)
            ),
        },
    )

    first, second = io.StringIO(), io.StringIO()
    call_command("demo", stdout=first)
    call_command("demo", stdout=second)

    assert made == ["open", "masters", "club", "swiss", "masters"]
    open_cup = Tournament.objects.get(slug="demo-open-2027")
    assert open_cup.first_stage.status == Stage.Status.DRAFT
    # 240 imported and one player's request approved.
    assert open_cup.first_stage.entries.count() == 241
    said = first.getvalue()
    for where in (
        "/t/demo-open-2027/s/1/register/",
        "/t/demo-open-2027/s/1/registrations/",
        "/me/registrations/",
        "/t/demo-club-2027/s/1/g/1/games/",
        "/t/demo-swiss-2027/s/1/g/1/rounds/4/",
        "Sign in as 'organizer' (the organizer) or 'player' (a player)",
    ):
        assert where in said, where


@pytest.fixture
def club():
    return tournaments.create_demo_club(log=quiet)


def test_demo_club_is_a_round_robin_played_on_this_server_with_moves_made(club):
    stage = club.first_stage
    assert stage.play_on_server and stage.status == Stage.Status.PUBLISHED
    assert stage.format == Stage.Format.ROUND_ROBIN
    played = PlayedGame.objects.filter(stage=stage)
    assert played.count() == 15  # six players, each meets each once
    assert played.filter(ply__gt=0).count() == 6
    assert played.get(ended_by="checkmate").game.result == "1-0"
    assert played.get(ended_by="resignation").game.result == "0-1"
    # Every move was made by the player whose move it was, through the move action.
    moves = Move.objects.filter(game__stage=stage).select_related("game__game__white")
    mine = tournaments.AGAINST_THE_PLAYER_AS_BLACK + " " + tournaments.BEFORE_THE_PLAYER_AS_WHITE
    others = " ".join(m for m, _ in tournaments.OTHERS_GAMES)
    assert moves.count() == len(others.split()) + len(mine.split())
    for move in moves:
        game = move.game.game
        assert move.by == (game.white.user if move.ply % 2 else game.black.user)
    # Each finished game counts in the group's standings.
    assert sum(s.points for s in GroupStanding.objects.filter(group__stage=stage)) == 2


def test_demo_clubs_pages_answer_the_public_with_the_moves(client, club):
    stage = club.first_stage
    mate = PlayedGame.objects.get(stage=stage, ended_by="checkmate").game
    for url in (
        reverse("tournament", args=[club.slug]),
        reverse("stage", args=[club.slug, stage.order]),
        reverse("group", args=[club.slug, stage.order, 1]),
        reverse("game", args=[club.slug, stage.order, 1, mate.number]),
    ):
        assert client.get(url).status_code == 200, url
    board = client.get(board_url(mate))
    assert board.status_code == 200
    page = board.content.decode()
    assert "Qxf7#" in page and 'name="move"' not in page
    under_way = PlayedGame.objects.filter(stage=stage, ply__gt=0, finished_at__isnull=True)
    for played in under_way.select_related("game__group__stage__tournament"):
        assert client.get(board_url(played.game)).status_code == 200


def test_the_demo_player_has_two_games_waiting_for_their_move(client, club):
    accounts = get_user_model().objects.filter(username__in=tournaments.PLAYER_LOGINS)
    assert accounts.count() == len(tournaments.PLAYER_LOGINS)
    assert all(account.check_password(demo.DEMO_PASSWORD) for account in accounts)
    player = accounts.get(username=DEMO_PLAYER)
    client.force_login(player)
    mine = PlayedGame.objects.filter(stage=club.first_stage).select_related(
        "game__white__user", "game__black__user", "game__group__stage__tournament"
    )
    waiting = [
        p
        for p in mine
        if p.ply > 0 and (p.game.white.user if p.ply % 2 == 0 else p.game.black.user) == player
    ]
    assert len(waiting) == 2
    my_games = client.get(reverse("me"))
    assert my_games.status_code == 200
    for played in waiting:
        assert f'href="{board_url(played.game)}"' in my_games.content.decode()
        board = client.get(board_url(played.game))
        assert board.status_code == 200
        assert "Your move." in board.content.decode()
        assert f'name="after_ply" value="{played.ply}"' in board.content.decode()


def test_demo_open_takes_players_requests_in_every_state(client):
    cup = tournaments.create_demo_open_to_players(log=quiet)
    stage = cup.first_stage
    assert stage.open_registration and stage.status == Stage.Status.DRAFT
    requests = Registration.objects.filter(stage=stage).select_related("user", "entrant")
    assert Counter(r.status for r in requests) == {
        "approved": 1,
        "rejected": 1,
        "withdrawn": 1,
        "pending": 3,
        "reserve": 1,
    }
    approved = requests.get(status="approved")
    assert approved.entrant is not None and approved.entrant.user == approved.user
    assert requests.get(status="rejected").reason == tournaments.REJECTION
    assert requests.get(user__username=DEMO_PLAYER).status == "pending"

    # The public sees the stage open with its Register button; registering needs an account.
    tournament_page = client.get(reverse("tournament", args=[cup.slug]))
    assert tournament_page.status_code == 200
    register = reverse("stage-register", args=[cup.slug, stage.order])
    assert f'href="{register}"' in tournament_page.content.decode()
    assert client.get(register).status_code == 302

    client.force_login(get_user_model().objects.get(username=DEMO_PLAYER))
    page = client.get(register)
    assert page.status_code == 200 and "waiting for approval" in page.content.decode()
    page = client.get(reverse("my-registrations"))
    assert page.status_code == 200 and "waiting for approval" in page.content.decode()

    client.force_login(get_user_model().objects.get(username=demo.DEMO_USER))
    page = client.get(reverse("stage-registrations", args=[cup.slug, stage.order]))
    assert page.status_code == 200
    for state in Registration.Status:
        assert str(state.label) in page.content.decode(), state


def test_the_footer_names_every_format_on_a_round_robins_page(client, club):
    page = client.get(reverse("tournament", args=[club.slug])).content.decode()
    assert "Correspondence-chess tournaments: Silli system, Swiss and round robins." in page
    assert "by the Silli system" not in page


@pytest.fixture
def swiss():
    return tournaments.create_demo_swiss(log=quiet)


def test_demo_swiss_has_three_rounds_played_and_round_four_in_play(swiss):
    stage = swiss.first_stage
    assert stage.format == Stage.Format.SWISS and stage.status == Stage.Status.PUBLISHED
    assert stage.swiss_rounds == 7
    group = stage.groups.get()
    assert group.size == tournaments.SWISS_ENTRANTS
    assert len(set(group.seats.values_list("entrant__nation", flat=True))) > 10
    state = swiss_state(stage)
    assert state.paired == 4 and not state.complete
    games = Game.objects.filter(group=group)
    for number in (1, 2, 3):
        assert games.filter(round=number).count() == 14
        assert not games.filter(round=number, result="").exists(), number
    # Round 4: half its games finished, half in play; nothing paired beyond it.
    assert games.filter(round=4).exclude(result="").count() == 7
    assert state.open_games == 7
    assert not games.filter(round__gt=4).exists()
    # Every result a played game's (no forfeits), and each round's bye a different player's.
    assert set(games.exclude(result="").values_list("result", flat=True)) == {
        "1-0",
        "0-1",
        "1/2-1/2",
    }
    byes = SwissBye.objects.filter(group=group)
    assert sorted(byes.values_list("round", flat=True)) == [1, 2, 3, 4]
    assert byes.values("entrant").distinct().count() == 4


def test_no_two_players_meet_twice_in_the_demo_swiss(swiss):
    games = Game.objects.filter(group__stage=swiss.first_stage)
    meetings = Counter(frozenset(pair) for pair in games.values_list("white_id", "black_id"))
    assert len(meetings) == games.count() == 4 * 14
    assert set(meetings.values()) == {1}


def test_demo_swiss_pages_answer_the_public_round_by_round(client, swiss):
    stage = swiss.first_stage
    group = (swiss.slug, stage.order, 1)
    for url in (
        reverse("tournament", args=[swiss.slug]),
        reverse("stage", args=[swiss.slug, stage.order]),
        reverse("group", args=group),
        reverse("group-standings", args=group),
        reverse("group-crosstable", args=group),
    ):
        assert client.get(url).status_code == 200, url
    assert client.get(reverse("group-rounds", args=group))["Location"] == reverse(
        "group-round", args=[*group, 4]
    )
    for number in (1, 2, 3, 4):
        page = client.get(reverse("group-round", args=[*group, number]))
        assert page.status_code == 200, number
        html = page.content.decode()
        assert f"Round {number} of 7" in html and f"Standings after round {number}" in html
        assert ("Provisional: 7 games" in html) == (number == 4)
        assert 'name="result"' not in html  # the public sees results, no forms
    assert client.get(reverse("group-round", args=[*group, 5])).status_code == 404
