"""Results players report: a player of the game reports, the opponent confirms (the result
stands, as if the TD had entered it) or disputes with a reason (the TD decides)."""

from __future__ import annotations

import pytest
from django.db.models import Q
from django.utils import timezone

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.groups.models import Game, Group
from apps.results.models import ResultReport
from apps.results.reports import report_queue
from apps.results.services import enter_result
from apps.standings.models import GroupStanding

SCHOLARS_MATE = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"


def reports_url(game) -> str:
    return f"/api/games/{game.pk}/reports/"


def answer_url(game, report_id: int, answer: str) -> str:
    return f"/api/games/{game.pk}/reports/{report_id}/{answer}/"


def player_wins(world, game) -> str:
    return "1-0" if game.white_id == world.player_entrant.pk else "0-1"


def report(as_user, world, game, result=None, **extra):
    body = {"result": player_wins(world, game) if result is None else result, **extra}
    return as_user(world.users["player"]).post(
        reports_url(game), body, content_type="application/json"
    )


def events(action: Action, game) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, game_id=game.pk))


def test_a_player_reports_a_pending_result(world, game, as_user):
    answer = report(as_user, world, game)
    assert answer.status_code == 201, answer.json()
    data = answer.json()
    side = "white" if game.white_id == world.player_entrant.pk else "black"
    assert data["status"] == "pending" and data["game"] == game.pk
    assert data["result"] == player_wins(world, game) and data["reporter_side"] == side
    assert data["created_at"] and data["pgn"] == ""
    game.refresh_from_db()
    assert game.result == ""  # nothing stands until the opponent confirms
    [event] = events(Action.RESULT_REPORTED, game)
    assert event.actor == world.users["player"] and event.data["report"] == data["id"]
    assert [r.pk for r in report_queue(world.group)[1]] == [data["id"]]


@pytest.mark.parametrize("role", ["anonymous", "rival", "td", "organizer", "staff"])
def test_only_the_two_players_report(world, game, as_user, role):
    answer = as_user(world.users[role]).post(
        reports_url(game), {"result": "1-0"}, content_type="application/json"
    )
    assert answer.status_code == 403
    assert not ResultReport.objects.exists()


def test_a_finished_game_or_a_closed_group_refuses_reports(world, game, as_user):
    enter_result(world.users["td"], game, "1/2-1/2", expected_version=game.version)
    assert report(as_user, world, game).status_code == 409

    mine = Q(white=world.player_entrant) | Q(black=world.player_entrant)
    other = Game.objects.filter(mine, group=world.group, result="").first()
    Group.objects.filter(pk=world.group.pk).update(closed_at=timezone.now())
    answer = report(as_user, world, other)
    assert answer.status_code == 409 and "closed" in answer.json()["message"]
    assert not ResultReport.objects.exists()


def test_a_second_pending_report_is_refused(world, game, opponent, as_user):
    assert report(as_user, world, game).status_code == 201
    assert report(as_user, world, game, result="1/2-1/2").status_code == 409
    again = as_user(opponent).post(
        reports_url(game), {"result": "1/2-1/2"}, content_type="application/json"
    )
    assert again.status_code == 409
    assert ResultReport.objects.count() == 1


def test_forfeits_and_bad_scores_are_refused_with_the_reason(world, game, as_user):
    assert report(as_user, world, game, result="+-").status_code == 400
    assert report(as_user, world, game, result="").status_code == 400
    illegal = report(as_user, world, game, pgn="1. e4 e5 2. Ke3 Nc6")
    assert illegal.status_code == 400
    assert "illegal move 2. Ke3" in illegal.json()["message"]
    mated = report(as_user, world, game, result="1/2-1/2", pgn="1. f3 e5 2. g4 Qh4#")
    assert mated.status_code == 400 and "checkmate" in mated.json()["message"]
    assert not ResultReport.objects.exists()


def test_the_opponent_confirms_and_the_result_stands_with_its_score(
    world, game, opponent, as_user, django_capture_on_commit_callbacks
):
    white_wins = game.white_id == world.player_entrant.pk
    if not white_wins:  # the player has Black: a score where Black mates
        moves = "1. f3 e5 2. g4 Qh4# 0-1"
    else:
        moves = SCHOLARS_MATE
    created = report(as_user, world, game, pgn=moves).json()
    assert "[WhiteCode " in created["pgn"]
    with django_capture_on_commit_callbacks(execute=True):
        answer = as_user(opponent).post(answer_url(game, created["id"], "confirm"))
    assert answer.status_code == 200, answer.json()
    assert answer.json()["status"] == "confirmed" and answer.json()["answered_at"]
    game.refresh_from_db()
    assert game.result == player_wins(world, game) and not game.adjudicated
    assert game.version == 1 and f'[White "{game.white.name}"]' in game.pgn
    assert "Qh4#" in game.pgn or "Qxf7#" in game.pgn
    [entered] = events(Action.RESULT_ENTERED, game)
    assert entered.actor == opponent and entered.data["new"] == game.result
    [confirmed] = events(Action.RESULT_REPORT_CONFIRMED, game)
    assert confirmed.actor == opponent
    standing = GroupStanding.objects.get(group=world.group, entrant=world.player_entrant)
    assert standing.finished == 1 and standing.points == 1
    assert not report_queue(world.group)[1]


@pytest.mark.parametrize("who", ["player", "td", "rival"])
def test_only_the_opponent_confirms(world, game, opponent, as_user, who):
    created = report(as_user, world, game).json()
    answer = as_user(world.users[who]).post(answer_url(game, created["id"], "confirm"))
    assert answer.status_code == 403
    game.refresh_from_db()
    assert game.result == "" and ResultReport.objects.get().status == "pending"


def test_a_dispute_needs_a_reason_and_leaves_the_game_to_the_td(world, game, opponent, as_user):
    created = report(as_user, world, game).json()
    url = answer_url(game, created["id"], "dispute")
    assert as_user(world.users["player"]).post(url, {"reason": "x"}).status_code == 403
    blank = as_user(opponent).post(url, {"reason": "  "}, content_type="application/json")
    assert blank.status_code == 400
    answer = as_user(opponent).post(
        url, {"reason": "I won on time"}, content_type="application/json"
    )
    assert answer.status_code == 200
    assert answer.json()["status"] == "disputed" and answer.json()["reason"] == "I won on time"
    game.refresh_from_db()
    assert game.result == "" and game.version == 0
    assert [r.pk for r in report_queue(world.group)[0]] == [created["id"]]
    [event] = events(Action.RESULT_REPORT_DISPUTED, game)
    assert event.actor == opponent and event.data["reason"] == "I won on time"

    confirm = as_user(opponent).post(answer_url(game, created["id"], "confirm"))
    assert confirm.status_code == 409
    again = as_user(opponent).post(url, {"reason": "twice"}, content_type="application/json")
    assert again.status_code == 409
    # The TD decides by entering the result: the dispute leaves the queue.
    enter_result(world.users["td"], game, "1/2-1/2", expected_version=game.version)
    assert not report_queue(world.group)[0]
    # A new report may follow a dispute (none is pending any more)... on an open game only.
    assert report(as_user, world, game).status_code == 409


def test_a_report_cannot_be_confirmed_once_the_td_entered_a_result(world, game, opponent, as_user):
    created = report(as_user, world, game).json()
    enter_result(world.users["td"], game, "1/2-1/2", expected_version=game.version)
    answer = as_user(opponent).post(answer_url(game, created["id"], "confirm"))
    assert answer.status_code == 409
    game.refresh_from_db()
    assert game.result == "1/2-1/2"


def test_the_players_the_td_and_organizers_list_the_reports(world, game, opponent, as_user):
    created = report(as_user, world, game).json()
    for user in (world.users["player"], opponent, world.users["td"], world.users["organizer"]):
        answer = as_user(user).get(reports_url(game))
        assert answer.status_code == 200
        assert [r["id"] for r in answer.json()] == [created["id"]]
    for role in ("anonymous", "rival", "other_td"):
        assert as_user(world.users[role]).get(reports_url(game)).status_code == 403
    assert as_user(opponent).get(answer_url(game, 0, "confirm")).status_code == 405
    assert as_user(opponent).post(answer_url(game, created["id"] + 1, "confirm")).status_code == 404
