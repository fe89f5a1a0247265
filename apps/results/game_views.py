"""A game's own page, for everyone who may see its stage: the players, the result and its
date, the moves on a board, the PGN download; and for the two players the reported result's
steps (report, confirm, dispute), for the TD the reports and a link to the result form.

The report actions are POSTed here from the game page and from "My games" (``next`` brings
the player back); each view parses its input, calls one action of ``reports`` and redirects
with a message (a refusal is shown, nothing changes).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.audit import RESULT_EVENTS
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.core.permissions import can_enter_results
from apps.groups.models import Game, Group
from apps.stages.models import Stage
from apps.stages.pages import visible_stage

from .emails import game_page
from .forms import DisputeForm, ReportForm
from .history import result_label
from .models import ResultReport
from .pages import game_url
from .reports import (
    can_see_reports,
    confirm_report,
    dispute_report,
    player_side,
    report_result,
    stands_on,
)


def _game(request: HttpRequest, slug: str, order: int, number: int, game_number: int) -> Game:
    stage = visible_stage(request, slug, order)
    group = get_object_or_404(Group.objects.select_related("td"), stage=stage, number=number)
    group.stage = stage
    game = get_object_or_404(
        Game.objects.select_related("white", "black"), group=group, number=game_number
    )
    game.group = group
    return game


def game(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
    the_game = _game(request, slug, order, number, game_number)
    group, stage = the_game.group, the_game.group.stage
    user = request.user
    side = player_side(user, the_game)
    reports = (
        list(the_game.reports.select_related("reporter")) if can_see_reports(user, the_game) else []
    )
    pending = next((r for r in reports if r.status == ResultReport.Status.PENDING), None)
    open_for_reports = (
        stage.status == Stage.Status.PUBLISHED and not group.is_closed and not the_game.result
    )
    here = game_page(the_game)
    signed_in_user = user.is_authenticated
    context = {
        "note": adjudication_note(the_game),
        # Players' actions wait here for a player who is signed out, or signed in with an
        # account that holds neither entry: say how to get to them.
        "sign_in_url": f"{reverse('login')}?{urlencode({'next': here})}"
        if open_for_reports and not signed_in_user
        else "",
        "claim_hint": open_for_reports
        and side is None
        and not (signed_in_user and can_enter_results(user, group)),
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "game": the_game,
        "result_label": result_label(the_game.result),
        "side": side,
        "reports": reports,
        "pending": pending,
        "pending_stands_on": stands_on(pending, stage.report_accept_days) if pending else None,
        # A game played here ends on its board, not by a report.
        "can_report": side is not None
        and open_for_reports
        and pending is None
        and not stage.play_on_server,
        "can_answer": pending is not None and open_for_reports and side == pending.opponent_side,
        "report_form": ReportForm(auto_id="report_%s"),
        "dispute_form": DisputeForm(auto_id="dispute_%s"),
        "td_form_url": game_url(group, the_game.number) if can_enter_results(user, group) else "",
        "pgn_url": reverse("api-game-pgn", args=[the_game.pk]),
        # A game played on this server is played on its board, the play app's page.
        "board_url": reverse(
            "game-play", args=[stage.tournament.slug, stage.order, number, game_number]
        )
        if stage.play_on_server
        else "",
    }
    return render(request, "results/game_page.html", context)


def adjudication_note(game: Game) -> str:
    """The reason the TD gave with an adjudicated result ('' for other games)."""
    if not game.adjudicated:
        return ""
    event = (
        AuditEvent.objects.filter(game_id=game.pk, action__in=RESULT_EVENTS)
        .order_by("-created_at", "-id")
        .first()
    )
    return str(event.data.get("reason", "")) if event else ""


def _back(request: HttpRequest, game: Game) -> str:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return game_page(game)


def _refused(request: HttpRequest, refused: ActionError) -> None:
    if refused.code == ErrorCode.PERMISSION_DENIED:
        raise PermissionDenied(refused.message) from refused
    messages.error(request, refused.message)


@require_POST
@login_required
def report(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
    the_game = _game(request, slug, order, number, game_number)
    form = ReportForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                # A form's error list yields texts (the stubs also say ValidationError).
                messages.error(request, str(error))
        return redirect(_back(request, the_game))
    try:
        report_result(request.user, the_game, form.cleaned_data["result"], form.cleaned_data["pgn"])
    except ActionError as refused:
        _refused(request, refused)
    else:
        opponent = (
            the_game.black if player_side(request.user, the_game) == "white" else the_game.white
        )
        messages.success(
            request,
            _("Reported: %(white)s – %(black)s %(result)s. %(opponent)s is asked to confirm it.")
            % {
                "white": the_game.white.name,
                "black": the_game.black.name,
                "result": result_label(form.cleaned_data["result"]),
                "opponent": opponent.name,
            },
        )
    return redirect(_back(request, the_game))


def _pending_report(game: Game, report_id: int) -> ResultReport:
    return get_object_or_404(ResultReport, pk=report_id, game=game)


@require_POST
@login_required
def confirm(
    request: HttpRequest, slug: str, order: int, number: int, game_number: int, report_id: int
):
    the_game = _game(request, slug, order, number, game_number)
    the_report = _pending_report(the_game, report_id)
    try:
        confirm_report(request.user, the_report)
    except ActionError as refused:
        _refused(request, refused)
    else:
        messages.success(
            request,
            _("Confirmed: %(white)s – %(black)s %(result)s.")
            % {
                "white": the_game.white.name,
                "black": the_game.black.name,
                "result": result_label(the_report.result),
            },
        )
    return redirect(_back(request, the_game))


@require_POST
@login_required
def dispute(
    request: HttpRequest, slug: str, order: int, number: int, game_number: int, report_id: int
):
    the_game = _game(request, slug, order, number, game_number)
    the_report = _pending_report(the_game, report_id)
    form = DisputeForm(request.POST)
    try:
        if not form.is_valid():
            raise ActionError(ErrorCode.INVALID_INPUT, _("Say why you dispute the result."))
        dispute_report(request.user, the_report, form.cleaned_data["reason"])
    except ActionError as refused:
        _refused(request, refused)
    else:
        messages.success(
            request, _("Disputed: the TD of group %(number)s decides.") % {"number": number}
        )
    return redirect(_back(request, the_game))
