"""A report closes when its game gets a result, by whatever road the result comes (the TD's
form or API, a withdrawal, a CSV or PGN import, another report that stands, the demo's
simulation): *resolved* when the game got the reported result, *superseded* when another,
with a ``result.report_closed`` event naming the road. A finished game's report can no longer
be disputed: refused with a sentence, nothing sent."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.results.imports import import_results
from apps.results.models import ResultReport
from apps.results.reports import confirm_report, dispute_report, report_result
from apps.results.services import enter_result, withdraw_entrant
from apps.results.simulate import simulate_results

from .test_reports import answer_url, events, player_wins

OPEN = ("pending", "disputed")


def _reported(world, game, *, disputed_by=None) -> ResultReport:
    """The player reports that they won; the opponent disputes it if ``disputed_by``."""
    report = report_result(world.users["player"], game, player_wins(world, game))
    if disputed_by is not None:
        report = dispute_report(disputed_by, report, "I won on time")
    return report


def _other(world, result: str) -> str:
    """A played result other than ``result``."""
    return "1/2-1/2" if result != "1/2-1/2" else "1-0"


def _closed(report: ResultReport, status: str, road: str, actor) -> None:
    report.refresh_from_db()
    assert report.status == status
    assert report.answered_at is not None and report.answered_by == actor
    [event] = events(Action.RESULT_REPORT_CLOSED, report.game)
    assert event.data["report"] == report.pk and event.data["status"] == status
    assert event.data["road"] == road and event.actor == actor
    assert event.data["game_result"] == Game.objects.get(pk=report.game_id).result


@pytest.mark.parametrize("disputed", [False, True])
def test_the_tds_result_closes_a_pending_or_disputed_report(world, game, opponent, disputed):
    report = _reported(world, game, disputed_by=opponent if disputed else None)
    td = world.users["td"]
    enter_result(td, game, _other(world, report.result), expected_version=game.version)
    _closed(report, "superseded", "entered", td)


def test_the_tds_result_as_reported_resolves_the_report(world, game, opponent):
    report = _reported(world, game, disputed_by=opponent)
    enter_result(world.users["td"], game, report.result, expected_version=game.version)
    _closed(report, "resolved", "entered", world.users["td"])


def test_the_result_api_closes_the_report(world, game, opponent, as_user):
    report = _reported(world, game)
    answer = as_user(world.users["td"]).post(
        f"/api/games/{game.pk}/result/",
        {"result": "1/2-1/2", "expected_version": game.version},
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.json()
    _closed(report, "superseded", "entered", world.users["td"])


def test_the_results_grid_closes_the_report(world, game, opponent, client):
    report = _reported(world, game, disputed_by=opponent)
    stage = world.stage
    client.force_login(world.users["td"])
    url = reverse(
        "game-result", args=[stage.tournament.slug, stage.order, game.group.number, game.number]
    )
    answer = client.post(url, {"result": report.result, "version": game.version})
    assert answer.status_code in (200, 302)
    assert Game.objects.get(pk=game.pk).result == report.result
    _closed(report, "resolved", "entered", world.users["td"])


def test_a_withdrawal_closes_the_reports_of_the_games_it_forfeits(world, game, opponent):
    report = _reported(world, game)
    entry = StageEntry.objects.get(stage=world.stage, entrant=world.player_entrant)
    withdraw_entrant(world.users["td"], entry, "left the event")
    _closed(report, "superseded", "withdrawal", world.users["td"])


@pytest.mark.parametrize("file_format", ["csv", "pgn"])
def test_an_import_closes_the_reports_of_the_games_it_settles(world, game, opponent, file_format):
    report = _reported(world, game, disputed_by=opponent)
    untouched = _reported_elsewhere(world, game)
    if file_format == "csv":
        text = f"white,black,result\n{game.white.code},{game.black.code},{report.result}\n"
    else:
        text = (
            f'[White "{game.white.name}"]\n[Black "{game.black.name}"]\n'
            f'[WhiteCode "{game.white.code}"]\n[BlackCode "{game.black.code}"]\n'
            f'[Result "{report.result}"]\n\n{report.result}\n'
        )
    imported = import_results(world.users["td"], group=world.group, text=text)
    assert imported.results == 1 and imported.file_format == file_format
    _closed(report, "resolved", "import", world.users["td"])
    untouched.refresh_from_db()
    assert untouched.status == "pending"  # its game has no result yet


def _reported_elsewhere(world, game) -> ResultReport:
    """A pending report of another open game of the same group (reported by its White)."""
    from tests.worlds.published import make_user

    other = (
        Game.objects.filter(group=world.group, result="")
        .exclude(pk=game.pk)
        .exclude(white=world.player_entrant)
        .exclude(black=world.player_entrant)
        .exclude(white=game.white)
        .exclude(white=game.black)
        .order_by("number")
        .first()
    )
    reporter = make_user(f"white-of-{other.number}")
    type(other.white).objects.filter(pk=other.white_id).update(user=reporter)
    other.refresh_from_db()
    return report_result(reporter, other, "1-0")


def test_a_report_that_stands_closes_the_dispute_before_it(world, game, opponent):
    disputed = _reported(world, game, disputed_by=opponent)
    again = report_result(opponent, game, _other(world, disputed.result))
    confirm_report(world.users["player"], again)
    again.refresh_from_db()
    assert again.status == "confirmed"
    _closed(disputed, "superseded", "report", world.users["player"])


def test_the_simulation_closes_the_reports_of_the_games_it_finishes(world, game, opponent):
    report = _reported(world, game)
    simulate_results(world.users["organizer"], world.stage, share=1.0, withdrawals=0.0)
    report.refresh_from_db()
    assert Game.objects.get(pk=game.pk).result
    assert report.status in ("resolved", "superseded")
    [event] = events(Action.RESULT_REPORT_CLOSED, game)
    assert event.data["road"] == "simulation"


def test_no_report_stays_open_on_a_finished_game(world, game, opponent):
    report = _reported(world, game, disputed_by=opponent)
    enter_result(world.users["td"], game, "1-0", expected_version=game.version)
    assert not ResultReport.objects.filter(status__in=OPEN, game__result__gt="").exists()
    report.refresh_from_db()
    assert report.reason == "I won on time"  # the dispute's reason is kept


def test_a_dispute_on_a_finished_game_is_refused_and_sends_nothing(
    world, game, opponent, as_user, django_capture_on_commit_callbacks
):
    report = _reported(world, game)
    # A report left pending on a finished game (as before reports closed by themselves).
    Game.objects.filter(pk=game.pk).update(result="1/2-1/2")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer = as_user(opponent).post(
            answer_url(game, report.pk, "dispute"),
            {"reason": "I won"},
            content_type="application/json",
        )
    assert answer.status_code == 409
    assert "finished already (1/2-1/2)" in answer.json()["message"]
    assert "can no longer be disputed" in answer.json()["message"]
    report.refresh_from_db()
    assert report.status == "pending" and report.reason == ""
    assert mail.outbox == [] and not events(Action.RESULT_REPORT_DISPUTED, game)


def test_a_dispute_of_a_closed_report_is_refused(world, game, opponent):
    report = _reported(world, game)
    enter_result(world.users["td"], game, "1/2-1/2", expected_version=game.version)
    with pytest.raises(ActionError, match="can no longer be disputed"):
        dispute_report(opponent, report, "I won")
    report.refresh_from_db()
    assert report.status == "superseded"


def test_the_migration_closes_the_reports_left_open_on_finished_games(world, game, opponent):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("apps.results.migrations.0006_report_closed")
    report = _reported(world, game, disputed_by=opponent)
    open_game = _reported_elsewhere(world, game)
    Game.objects.filter(pk=game.pk).update(result=report.result)  # as an import did before
    migration.close_settled_reports(apps, None)
    report.refresh_from_db()
    open_game.refresh_from_db()
    assert report.status == "resolved" and open_game.status == "pending"
    [event] = events(Action.RESULT_REPORT_CLOSED, game)
    assert event.data["road"] == "migration" and event.actor is None
