"""Reported results beyond the API: the game's page and "My games" with their buttons, the
TD's queue, the e-mails of each step (sent once), and the report nobody answers standing by
itself after the stage's ``report_accept_days``."""

from __future__ import annotations

from datetime import date, timedelta

from django.core import mail
from django.urls import reverse
from django.utils import timezone

from apps.core.audit import Action
from apps.groups.models import Game, Group
from apps.results import tasks
from apps.results.models import ResultReport
from apps.results.reports import accept_due_reports, report_result
from apps.results.services import enter_result
from apps.stages.models import Stage

from .test_reports import SCHOLARS_MATE, events, player_wins


def game_page(game) -> str:
    stage = game.group.stage
    return reverse(
        "game", args=[stage.tournament.slug, stage.order, game.group.number, game.number]
    )


def _args(game) -> list:
    stage = game.group.stage
    return [stage.tournament.slug, stage.order, game.group.number, game.number]


def player_mates(world, game) -> str:
    """A score in which the player (the report's author) mates."""
    if game.white_id == world.player_entrant.pk:
        return SCHOLARS_MATE
    return "1. f3 e5 2. g4 Qh4# 0-1"


def test_the_game_page_is_public_and_links_from_the_crosstable(world, game, client):
    enter_result(world.users["td"], game, "1/2-1/2", expected_version=0)
    html = client.get(game_page(game)).content.decode()
    assert game.white.name in html and game.black.name in html and "½-½" in html
    assert "Report the result" not in html and "Reported results" not in html
    assert timezone.localdate().isoformat() in html  # the finish date, set by the entry
    crosstable = client.get(reverse("group-crosstable", args=_args(game)[:3])).content.decode()
    assert f'href="{game_page(game)}">' in crosstable
    assert timezone.localdate().isoformat() in crosstable  # in the square's tooltip


def test_an_unpublished_stage_hides_its_games(world, game, client):
    Stage.objects.filter(pk=game.group.stage_id).update(status=Stage.Status.DRAWN)
    assert client.get(game_page(game)).status_code == 404


def test_a_player_reports_on_the_page_and_the_opponent_confirms_from_my_games(
    world, game, opponent, as_user, django_capture_on_commit_callbacks
):
    player = as_user(world.users["player"])
    html = player.get(game_page(game)).content.decode()
    assert "Report the result" in html
    mail.outbox.clear()  # the start lists
    with django_capture_on_commit_callbacks(execute=True):
        answer = player.post(
            reverse("game-report", args=_args(game)),
            {"result": player_wins(world, game), "pgn": player_mates(world, game)},
        )
    assert answer.status_code == 302 and answer["Location"] == game_page(game)
    report = ResultReport.objects.get()
    assert report.status == "pending" and report.pgn and report.finished_on == timezone.localdate()
    # The opponent gets one e-mail asking for an answer (a second run sends nothing).
    [asked] = mail.outbox
    assert asked.to == [opponent_address(world, game)] and "Confirm a result" in asked.subject
    # the subject names the tournament and the stage (issue 27)
    assert f"Accounts Cup, Preliminary, group {game.group.number}:" in asked.subject
    assert game_page(game) in asked.body and "7 days" in asked.body
    assert tasks.result_reported(report.pk) == 0 and len(mail.outbox) == 1

    html = player.get(game_page(game)).content.decode()
    assert "awaits your opponent" in html and "Report the result" not in html
    mine = as_user(opponent).get("/me/").content.decode()
    assert "reported by your opponent" in mine
    confirm = reverse("game-report-confirm", args=[*_args(game), report.pk])
    assert f'action="{confirm}"' in mine

    with django_capture_on_commit_callbacks(execute=True):
        answer = as_user(opponent).post(confirm, {"next": "/me/"})
    assert answer.status_code == 302 and answer["Location"] == "/me/"
    game.refresh_from_db()
    assert game.result == player_wins(world, game) and "#" in game.pgn
    assert game.finished_on == timezone.localdate()
    assert len(mail.outbox) == 3  # the result e-mail to both players
    html = as_user(opponent).get(game_page(game)).content.decode()
    assert "data-pgn-viewer" in html and "confirmed" in html


def opponent_address(world, game) -> str:
    other = game.black if game.white_id == world.player_entrant.pk else game.white
    return other.email


def test_a_dispute_on_the_page_mails_the_reporter_and_the_td_and_queues_the_game(
    world, game, opponent, as_user, django_capture_on_commit_callbacks
):
    report = report_result(world.users["player"], game, player_wins(world, game))
    dispute = reverse("game-report-dispute", args=[*_args(game), report.pk])
    refused = as_user(opponent).post(dispute, {"reason": ""})
    assert refused.status_code == 302
    assert ResultReport.objects.get().status == "pending"
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        as_user(opponent).post(dispute, {"reason": "I won on time"})
    assert ResultReport.objects.get().status == "disputed"
    recipients = sorted(m.to[0] for m in mail.outbox)
    assert recipients == sorted([world.player_entrant.email, world.users["td"].email])
    assert all("I won on time" in m.body for m in mail.outbox)
    assert tasks.report_disputed(report.pk) == 0

    queue = (
        as_user(world.users["td"])
        .get(reverse("group-results", args=_args(game)[:3]))
        .content.decode()
    )
    assert "1 dispute to decide" in queue and "I won on time" in queue
    assert reverse("game-result", args=_args(game)) in queue
    # The other players of the group do not see the reports.
    html = as_user(world.users["rival"]).get(game_page(game)).content.decode()
    assert "I won on time" not in html


def test_only_the_players_see_the_report_form_and_a_stranger_is_refused(world, game, as_user):
    for role in ("rival", "td", "organizer"):
        html = as_user(world.users[role]).get(game_page(game)).content.decode()
        assert "Report the result" not in html
    answer = as_user(world.users["rival"]).post(
        reverse("game-report", args=_args(game)), {"result": "1-0"}
    )
    assert answer.status_code == 403 and not ResultReport.objects.exists()
    td = as_user(world.users["td"]).get(game_page(game)).content.decode()
    assert reverse("game-result", args=_args(game)) in td  # the TD's own form


def test_my_games_offers_a_report_on_each_open_game(world, game, as_user):
    mine = as_user(world.users["player"]).get("/me/").content.decode()
    assert f'action="{reverse("game-report", args=_args(game))}"' in mine
    answer = as_user(world.users["player"]).post(
        reverse("game-report", args=_args(game)), {"result": "", "next": "/me/"}
    )
    assert answer.status_code == 302 and not ResultReport.objects.exists()


def test_a_report_with_a_dated_score_keeps_the_date(world, game):
    day = date(2026, 3, 9)
    pgn = f'[Date "{day:%Y.%m.%d}"]\n\n{player_mates(world, game)}'
    report = report_result(world.users["player"], game, player_wins(world, game), pgn)
    assert report.finished_on == day


# ---------------------------------------------------------------------------
# Standing unanswered
# ---------------------------------------------------------------------------


def _aged(report: ResultReport, days: float) -> None:
    ResultReport.objects.filter(pk=report.pk).update(
        created_at=timezone.now() - timedelta(days=days)
    )


def test_an_unanswered_report_stands_after_the_stage_days_once(
    world, game, django_capture_on_commit_callbacks
):
    report = report_result(world.users["player"], game, player_wins(world, game))
    _aged(report, 6.9)
    assert accept_due_reports() == []  # the default: 7 days
    assert accept_due_reports() == []
    Stage.objects.filter(pk=game.group.stage_id).update(report_accept_days=3)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert accept_due_reports() == [report.pk]
    assert accept_due_reports() == []
    report.refresh_from_db()
    game.refresh_from_db()
    assert report.status == "accepted" and report.answered_by is None
    assert game.result == player_wins(world, game) and game.version == 1
    [accepted] = events(Action.RESULT_REPORT_ACCEPTED, game)
    assert accepted.actor is None
    [entered] = events(Action.RESULT_ENTERED, game)
    assert entered.actor is None
    assert len(mail.outbox) == 2  # both players learn the result


def test_a_report_waits_when_the_group_is_closed_and_closes_when_the_td_decided(world, game):
    report = report_result(world.users["player"], game, player_wins(world, game))
    _aged(report, 30)
    Group.objects.filter(pk=game.group_id).update(closed_at=timezone.now())
    assert accept_due_reports() == []
    assert ResultReport.objects.get().status == "pending"
    Group.objects.filter(pk=game.group_id).update(closed_at=None)
    enter_result(world.users["td"], Game.objects.get(pk=game.pk), "1/2-1/2", expected_version=0)
    assert accept_due_reports() == []
    # The TD's result closed the report (another result stands); it never stands now.
    assert ResultReport.objects.get().status == "superseded"
    assert Game.objects.get(pk=game.pk).result == "1/2-1/2"


def test_the_days_to_answer_is_a_stage_setting_of_the_api(world, as_user):
    stage = world.stage
    client = as_user(world.users["organizer"])
    url = f"/api/stages/{stage.pk}/"
    assert client.get(url).json()["report_accept_days"] == 7
    answer = client.patch(url, {"report_accept_days": 0}, content_type="application/json")
    assert answer.status_code == 400
    answer = client.patch(url, {"report_accept_days": 14}, content_type="application/json")
    assert answer.status_code == 200, answer.json()
    stage.refresh_from_db()
    assert stage.report_accept_days == 14


# ---------------------------------------------------------------------------
# The TD's score and date of a game
# ---------------------------------------------------------------------------


def test_the_td_enters_a_score_and_a_date_on_the_games_form(world, game, as_user):
    td = as_user(world.users["td"])
    url = reverse("game-result", args=_args(game))
    won = player_wins(world, game)
    bad = td.post(url, {"result": won, "version": 0, "pgn": "1. e4 e5 2. Ke3"})
    assert bad.status_code == 400 and "illegal move 2. Ke3" in bad.content.decode()
    answer = td.post(
        url,
        {
            "result": won,
            "version": 0,
            "pgn": player_mates(world, game),
            "finished_on": "2026-10-01",
        },
    )
    assert answer.status_code == 302
    game.refresh_from_db()
    assert game.result == won and "#" in game.pgn and game.finished_on == date(2026, 10, 1)
    # The score alone of a finished game changes without a reason and without a result e-mail.
    mail.outbox.clear()
    answer = td.post(url, {"result": won, "version": 1, "pgn": "", "finished_on": "2026-10-02"})
    assert answer.status_code == 302
    game.refresh_from_db()
    assert (game.pgn, game.finished_on, game.version) == ("", date(2026, 10, 2), 2)
    assert [e.data["pgn"] for e in events(Action.GAME_SCORE_CHANGED, game)] == [False]
    assert mail.outbox == []


def test_the_grid_dialog_leaves_the_score_alone(world, game, as_user):
    enter_result(
        world.users["td"],
        game,
        player_wins(world, game),
        expected_version=0,
        pgn=player_mates(world, game),
    )
    url = reverse("game-result", args=_args(game))
    answer = as_user(world.users["td"]).post(
        url, {"result": "1/2-1/2", "version": 1, "reason": "misread"}
    )
    assert answer.status_code == 302  # the dialog sends no score: the stored one stays
    game.refresh_from_db()
    assert game.result == "1/2-1/2" and "#" in game.pgn


def test_the_api_takes_a_score_with_the_result(world, game, as_user):
    answer = as_user(world.users["td"]).post(
        f"/api/games/{game.pk}/result/",
        {
            "result": player_wins(world, game),
            "expected_version": 0,
            "pgn": player_mates(world, game),
        },
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.json()
    assert "#" in answer.json()["pgn"] and answer.json()["finished_on"]


def test_an_adjudicated_game_shows_the_tds_note(world, game, client):
    enter_result(
        world.users["td"],
        game,
        "1/2-1/2",
        expected_version=0,
        adjudicated=True,
        reason="Dead draw: opposite bishops",
    )
    html = client.get(game_page(game)).content.decode()
    assert "Adjudication note" in html and "Dead draw: opposite bishops" in html


def test_only_the_reporter_reads_you_reported_once_the_group_is_closed(
    world, game, opponent, as_user
):
    report_result(world.users["player"], game, player_wins(world, game))
    Group.objects.filter(pk=game.group_id).update(closed_at=timezone.now())
    theirs = as_user(opponent).get(game_page(game)).content.decode()
    assert "You reported" not in theirs and "Confirm the result" not in theirs
    mine = as_user(world.users["player"]).get(game_page(game)).content.decode()
    assert "You reported" in mine
