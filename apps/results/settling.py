"""Reports close when their game gets a result, by whatever road it comes: the TD's form or
grid, an adjudication, a withdrawal's forfeits, a results import, a confirmed or accepted
report, the demo's simulation. Every writer of results calls :func:`settle_reports` in its
transaction, after the games are written: ``set_result`` (one game: the form, the grid, the
API, a report that stands), ``withdraw_entrant``, the import's ``_apply`` and the
simulation.

A report still awaiting the opponent (pending) or the TD (disputed) whose game now has a
result is closed: *resolved* when the game got the reported result, *superseded* when it
got another; answered by whoever wrote the result (None: the system), with a
``result.report_closed`` audit event naming the road. Nothing is e-mailed for it: the
result's own e-mails (or the import's digest) tell the players.

Lock order (``apps.core.locking``): the callers hold the groups and then the games; the
reports are locked after them, as every report action does.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q
from django.utils import timezone

from apps.core.audit import Action, record
from apps.core.permissions import Actor, signed_in

from .models import ResultReport

# How a game got its result, as the audit event says it.
ENTERED = "entered"  # the TD's form, grid or API, adjudications included
REPORT = "report"  # another report of the game stood
WITHDRAWAL = "withdrawal"  # a player's withdrawal made it a forfeit
IMPORT = "import"  # a results import
SIMULATION = "simulation"  # the demo's simulated results


def settle_reports(
    user: Actor | None,
    road: str,
    *,
    game_ids: Iterable[int] = (),
    group_ids: Iterable[int] = (),
) -> list[int]:
    """Close the open reports (pending or disputed) of the games named, or of every game of
    the groups named, that have a result now. Returns the reports closed (one query when
    there are none)."""
    game_ids, group_ids = sorted(set(game_ids)), sorted(set(group_ids))
    if not game_ids and not group_ids:
        return []
    scope = Q(game_id__in=game_ids) | Q(game__group_id__in=group_ids)
    reports = list(
        ResultReport.objects.select_for_update(no_key=True, of=("self",))
        .filter(scope, status__in=ResultReport.OPEN)
        .exclude(game__result="")
        .select_related("game__group__stage__tournament")
        .order_by("pk")
    )
    now = timezone.now()
    by = user if signed_in(user) else None
    for report in reports:
        game = report.game
        report.status = (
            ResultReport.Status.RESOLVED
            if report.result == game.result
            else ResultReport.Status.SUPERSEDED
        )
        report.answered_at, report.answered_by = now, by
        report.save(update_fields=["status", "answered_at", "answered_by"])
        record(
            Action.RESULT_REPORT_CLOSED,
            by,
            stage=game.group.stage,
            group=game.group,
            game=game,
            report=report.pk,
            result=report.result,
            side=report.reporter_side,
            status=report.status,
            game_result=game.result,
            road=road,
        )
    return [r.pk for r in reports]
