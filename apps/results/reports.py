"""Results players report: one of the two players of a game reports its result (and, if
they like, its score); the opponent confirms it, and the result stands as if the TD had
entered it, or disputes it with a reason, and the group's TD decides (by entering the
result). A report nobody answers within the stage's ``report_accept_days`` stands by itself
(:func:`accept_due_reports`, run by Celery beat). Each step is one transaction with its
audit event; the game row is locked first; its e-mails go on commit (the opponent of a new
report; the reporter and the TD of a dispute; both players when a result stands).
"""

from __future__ import annotations

import io
import logging
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

import chess.pgn
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, can_enter_results, signed_in
from apps.core.results import Result
from apps.groups.models import Game, Group
from apps.stages.models import Stage

from . import settling, tasks
from .imports import checked_game_score, pgn_date
from .models import ResultReport
from .services import (
    locked_game,
    require_group_open,
    require_in_play,
    require_result_code,
    set_result,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)


def player_side(user: Actor, game: Game) -> str | None:
    """ "white" or "black" if ``user`` holds (has claimed) that player's entry, else None."""
    if not getattr(user, "is_authenticated", False):
        return None
    if game.white.user_id == user.pk:
        return "white"
    if game.black.user_id == user.pk:
        return "black"
    return None


def can_see_reports(user: Actor, game: Game) -> bool:
    """The two players, the group's TD and the organizers see a game's reports."""
    return player_side(user, game) is not None or can_enter_results(user, game.group)


def require_reported_result(result: str) -> Result:
    """A played result (1-0, 0-1, 1/2-1/2): forfeits and "in progress" are the TD's."""
    code = require_result_code(result)
    if not code.played:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("Players report played results only (1-0, 0-1 or 1/2-1/2); the TD enters forfeits."),
        )
    return code


def _require_unfinished(game: Game) -> None:
    if game.result:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("The game is finished already (%(result)s); ask the TD for a correction.")
            % {"result": game.result},
        )


def _locked_report(report: ResultReport) -> tuple[Game, ResultReport]:
    """The report's game, then the report, locked in that order (as every result change)."""
    game = locked_game(report.game_id)
    report = ResultReport.objects.select_for_update(no_key=True).get(pk=report.pk)
    report.game = game
    return game, report


def require_opponent(user: Actor, report: ResultReport, game: Game) -> User:
    """Refuse anyone but the reporter's opponent (the player of the other side); returns
    their account."""
    if not signed_in(user) or player_side(user, game) != report.opponent_side:
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the reporter's opponent may confirm or dispute a reported result."),
        )
    return user


def _require_pending(report: ResultReport) -> None:
    if report.status != ResultReport.Status.PENDING:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("The report was answered already (%(status)s).")
            % {"status": report.get_status_display()},
        )


def _audit(action: Action, user: Actor | None, game: Game, report: ResultReport, **data) -> None:
    record(
        action,
        user,
        stage=game.group.stage,
        group=game.group,
        game=game,
        report=report.pk,
        result=report.result,
        side=report.reporter_side,
        **data,
    )


def report_result(user: Actor, game: Game, result: str, pgn: str = "") -> ResultReport:
    """``user``, a player of ``game``, reports its result (and optionally its score)."""
    with transaction.atomic():
        game = locked_game(game.pk)
        side = player_side(user, game)
        if side is None or not signed_in(user):  # (a player is signed in)
            raise ActionError(
                ErrorCode.PERMISSION_DENIED,
                _("Only the two players of a game may report its result."),
            )
        code = require_reported_result(result)
        require_in_play(game.group.stage)
        require_group_open(game.group)
        _require_unfinished(game)
        if game.reports.filter(status=ResultReport.Status.PENDING).exists():
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("A result reported for this game awaits the opponent's answer already."),
            )
        stored = checked_game_score(game, code.value, pgn) if pgn.strip() else ""
        try:
            with transaction.atomic():
                report = ResultReport.objects.create(
                    game=game,
                    reporter=user,
                    reporter_side=side,
                    result=code.value,
                    pgn=stored,
                    finished_on=_score_date(stored) or timezone.localdate(),
                )
        except IntegrityError:  # the game row is locked: only if the lock was bypassed
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("A result reported for this game awaits the opponent's answer already."),
            ) from None
        _audit(Action.RESULT_REPORTED, user, game, report, pgn=bool(stored))
        transaction.on_commit(lambda: tasks.result_reported.delay(report.pk))
    return report


def _score_date(stored: str) -> date | None:
    """The complete Date tag of a checked score (a future date is no date)."""
    if not stored:
        return None
    headers = chess.pgn.read_headers(io.StringIO(stored))
    day, _problem = pgn_date(headers.get("Date", "") if headers else "")
    if day is None or day > timezone.localdate():
        return None
    return day


def confirm_report(user: Actor, report: ResultReport) -> ResultReport:
    """The opponent confirms a pending report: its result (and score) become the game's."""
    with transaction.atomic():
        game, report = _locked_report(report)
        user = require_opponent(user, report, game)
        _require_pending(report)
        _require_unfinished(game)
        report.status = ResultReport.Status.CONFIRMED
        report.answered_at, report.answered_by = timezone.now(), user
        report.save(update_fields=["status", "answered_at", "answered_by"])
        _audit(Action.RESULT_REPORT_CONFIRMED, user, game, report)
        _stand(user, game, report)
    return report


def _stand(user: Actor | None, game: Game, report: ResultReport) -> None:
    """The report's result (score, finish date) becomes the game's."""
    set_result(
        user,
        game,
        report.result,
        expected_version=game.version,
        pgn=report.pgn or None,
        finished_on=report.finished_on,
        road=settling.REPORT,
    )


def dispute_report(user: Actor, report: ResultReport, reason: str) -> ResultReport:
    """The opponent disputes a pending report, with a reason: the group's TD decides."""
    reason = reason.strip()
    with transaction.atomic():
        game, report = _locked_report(report)
        user = require_opponent(user, report, game)
        if not reason:
            raise ActionError(ErrorCode.INVALID_INPUT, _("Say why you dispute the result."))
        if game.result:  # whatever became of the report: a finished game is the TD's
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "The game is finished already (%(result)s): a report of it can no longer "
                    "be disputed. Ask the TD for a correction, giving your reason."
                )
                % {"result": game.result},
            )
        _require_pending(report)
        report.status = ResultReport.Status.DISPUTED
        report.reason = reason
        report.answered_at, report.answered_by = timezone.now(), user
        report.save(update_fields=["status", "reason", "answered_at", "answered_by"])
        _audit(Action.RESULT_REPORT_DISPUTED, user, game, report, reason=reason)
        transaction.on_commit(lambda: tasks.report_disputed.delay(report.pk))
    return report


def stands_on(report: ResultReport, days: int) -> datetime:
    """When a pending report stands unanswered (``days``: its stage's report_accept_days)."""
    return report.created_at + timedelta(days=days)


def accept_due_reports(now: datetime | None = None) -> list[int]:
    """Let every pending report that nobody answered within its stage's
    ``report_accept_days`` stand, as the system: the report is marked accepted and its
    result becomes the game's, each in its own transaction. Reports of games finished
    meanwhile, of closed groups or of stages out of play wait (the TD decides). Returns the
    reports accepted now; run again, or twice at once, it accepts none of them twice."""
    now = now or timezone.now()
    due = (
        ResultReport.objects.filter(
            status=ResultReport.Status.PENDING,
            game__result="",
            game__group__closed_at__isnull=True,
            game__group__stage__status=Stage.Status.PUBLISHED,
            created_at__lte=now - timedelta(days=1),
        )
        .select_related("game__group__stage")
        .order_by("created_at", "pk")
    )
    accepted = []
    for report in due.iterator(chunk_size=500):
        if stands_on(report, report.game.group.stage.report_accept_days) > now:
            continue
        try:
            with transaction.atomic():
                game, report = _locked_report(report)
                if report.status != ResultReport.Status.PENDING or game.result:
                    continue
                report.status = ResultReport.Status.ACCEPTED
                report.answered_at = now
                report.save(update_fields=["status", "answered_at"])
                _audit(Action.RESULT_REPORT_ACCEPTED, None, game, report)
                _stand(None, game, report)
        except ActionError as refused:  # the group closed meanwhile, say: the TD decides
            log.info("report %s not accepted: %s", report.pk, refused.message)
            continue
        accepted.append(report.pk)
    return accepted


def report_queue(group: Group) -> tuple[list[ResultReport], list[ResultReport]]:
    """The TD's queue of the group's open games (one query): the disputed reports, then the
    reports awaiting the opponent, oldest first."""
    reports = list(
        ResultReport.objects.filter(
            game__group=group,
            game__result="",
            status__in=(ResultReport.Status.DISPUTED, ResultReport.Status.PENDING),
        )
        .select_related("game__white", "game__black", "reporter")
        .order_by("created_at", "pk")
    )
    return (
        [r for r in reports if r.status == ResultReport.Status.DISPUTED],
        [r for r in reports if r.status == ResultReport.Status.PENDING],
    )
