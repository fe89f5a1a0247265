"""Concurrency on PostgreSQL: two TDs saving one game, a withdrawal racing a result, a
reported result standing by itself while another run or the opponent's dispute races it.

Each contender runs in its own thread with its own database connection, and both start
together at a barrier, so their transactions really overlap.
"""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, StageEntry
from apps.groups.models import Game
from apps.results.models import ResultReport
from apps.results.reports import accept_due_reports, dispute_report
from apps.results.services import enter_result, withdraw_entrant
from tests.racing import race

# page_bumps_on_commit: the cached pages' versions are bumped after each commit, as in production
# (bumped at once inside the racing transactions, they would deadlock on their own rows).
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.page_bumps_on_commit,
]


def test_two_simultaneous_saves_of_one_game_one_wins_one_conflicts(published_stage, organizer):
    game = Game.objects.filter(group__stage=published_stage).order_by("pk").first()
    codes = ["1-0", "0-1", "1/2-1/2", "+-", "-+"]
    for _ in range(5):
        current = Game.objects.get(pk=game.pk)
        version = current.version
        a, b = [c for c in codes if c != current.result][:2]  # both really change the game
        outcomes = race(
            lambda a=a, v=version: enter_result(
                organizer, game, a, expected_version=v, reason="race"
            ),
            lambda b=b, v=version: enter_result(
                organizer, game, b, expected_version=v, reason="race"
            ),
        )
        errors = [o for o in outcomes if isinstance(o, ActionError)]
        winners = [o for o in outcomes if isinstance(o, Game)]
        assert len(winners) == 1 and len(errors) == 1
        assert errors[0].code == ErrorCode.CONFLICT
        game.refresh_from_db()
        assert game.result == winners[0].result and game.version == version + 1


def test_a_withdrawal_racing_a_result_loses_nothing(published_stage, organizer):
    game = Game.objects.filter(group__stage=published_stage).order_by("pk").first()
    entry = StageEntry.objects.get(stage=published_stage, entrant=game.black)
    outcomes = race(
        lambda: enter_result(organizer, game, "0-1", expected_version=0),
        lambda: withdraw_entrant(organizer, entry, "moved away"),
    )
    game.refresh_from_db()
    if isinstance(outcomes[0], Game):
        # the result came first: the withdrawal kept it and forfeited the other nine
        assert game.result == "0-1"
        assert len(outcomes[1]) == 9
    else:
        # the withdrawal came first: the stale save was refused, the forfeit stands
        assert outcomes[0].code == ErrorCode.CONFLICT
        assert game.result == "+-" and len(outcomes[1]) == 10
    open_games = Game.objects.filter(group=game.group, result="").filter(
        white=entry.entrant
    ) | Game.objects.filter(group=game.group, result="", black=entry.entrant)
    assert not open_games.exists()


def _aged_report(stage, reporter) -> ResultReport:
    """A pending report on an open game of ``stage`` by White, older than any stage's days."""
    game = Game.objects.filter(group__stage=stage, result="").order_by("pk").first()
    report = ResultReport.objects.create(
        game=game, reporter=reporter, reporter_side="white", result="1-0"
    )
    ResultReport.objects.filter(pk=report.pk).update(
        created_at=timezone.now() - timedelta(days=100)
    )
    return report


def test_two_acceptance_runs_at_once_let_a_report_stand_once(published_stage, organizer):
    report = _aged_report(published_stage, organizer)
    outcomes = race(accept_due_reports, accept_due_reports)
    assert sorted(sum(outcomes, [])) == [report.pk]
    game = Game.objects.get(pk=report.game_id)
    assert (game.result, game.version) == ("1-0", 1)
    assert AuditEvent.objects.filter(game_id=game.pk, action=Action.RESULT_ENTERED).count() == 1


def test_a_dispute_racing_the_acceptance_leaves_one_answer(published_stage, organizer):
    report = _aged_report(published_stage, organizer)
    opponent = get_user_model().objects.create_user("race-opponent")
    Entrant.objects.filter(pk=report.game.black_id).update(user=opponent)
    outcomes = race(
        accept_due_reports, lambda: dispute_report(opponent, report, "I resigned? Never.")
    )
    report.refresh_from_db()
    game = Game.objects.get(pk=report.game_id)
    if report.status == ResultReport.Status.ACCEPTED:  # the acceptance came first
        assert outcomes[0] == [report.pk] and isinstance(outcomes[1], ActionError)
        assert game.result == "1-0"
    else:
        assert report.status == ResultReport.Status.DISPUTED and outcomes[0] == []
        assert game.result == "" and game.version == 0
