"""The board of a game played on this server (``…/g/N/games/M/play/``): the position, the
clocks in days, the moves with their dates, and for its two players the forms of every action
(a move, a draw offer and its answer, resignation, a claim, conditional moves), and for the
group's TD and the organizers the days they add to a clock.

Each POST view parses its form, calls one action of ``services`` and redirects back to the
board with a message (a refusal is shown, nothing changes). static/js/play.js sends the same
forms to the API instead and swaps in the page's parts without a reload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode

from . import services
from .forms import AddDaysForm, ClaimForm, ConditionalsForm, MoveForm
from .models import PlayedGame
from .pages import CLAIM_LABELS, board_of, board_url, played_game

# Each action's page route (``game-play-<name>``) and the API route the script sends it to.
ACTIONS = {
    "move": "api-game-moves",
    "draw-offer": "api-game-draw-offer",
    "draw-accept": "api-game-draw-accept",
    "draw-decline": "api-game-draw-decline",
    "resign": "api-game-resign",
    "long-think": "api-game-long-think",
    "claim": "api-game-claim",
    "conditionals": "api-game-conditionals",
    "conditionals-cancel": "api-game-conditionals",  # DELETE
    "add-days": "api-game-add-days",
}


def _addresses(played: PlayedGame) -> tuple[dict[str, str], dict[str, str]]:
    """The page's form targets and the API addresses the script sends them to."""
    game, stage = played.game, played.stage
    args = [stage.tournament.slug, stage.order, game.group.number, game.number]
    pages, api = {}, {}
    for name, route in ACTIONS.items():
        pages[name.replace("-", "_")] = reverse(f"game-play-{name}", args=args)
        api[name.replace("-", "_")] = reverse(route, args=[game.pk])
    api["state"] = reverse("api-game-play", args=[game.pk])
    return pages, api


def board(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
    played = played_game(request, slug, order, number, game_number)
    stage = played.stage
    pages, api = _addresses(played)
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": played.game.group,
        "game": played.game,
        "board": board_of(request.user, played, timezone.now()),
        "pages": pages,
        "api": api,
        "claim_kinds": CLAIM_LABELS.items(),
        "add_days_form": AddDaysForm(auto_id="days_%s"),
    }
    return render(request, "play/game.html", context)


def _acting(
    form_class: type[forms.Form] | None, act: Callable[..., object], done: object
) -> Callable[..., HttpResponse]:
    """A POST view: the form parsed, the action called as ``act(actor=…, game_id=…, **the
    form's fields)``, back to the board with ``done`` or the refusal's sentence."""

    @require_POST
    @login_required
    def view(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
        played = played_game(request, slug, order, number, game_number)
        form = form_class(request.POST) if form_class else None
        try:
            if form is not None and not form.is_valid():
                first = next(iter(form.errors.values()))[0]
                raise ActionError(ErrorCode.INVALID_INPUT, str(first))
            fields: dict[str, Any] = form.cleaned_data if form is not None else {}
            act(actor=request.user, game_id=played.pk, **fields)
        except ActionError as refused:
            if refused.code == ErrorCode.PERMISSION_DENIED:
                raise PermissionDenied(refused.message) from refused
            messages.error(request, refused.message)
        else:
            messages.success(request, str(done))
        return redirect(board_url(played.game))

    return view


move = _acting(MoveForm, services.make_move, _("Moved."))
draw_offer = _acting(None, services.offer_draw, _("Draw offered."))
draw_accept = _acting(None, services.accept_draw, _("Draw agreed."))
draw_decline = _acting(None, services.decline_draw, _("Draw declined."))
resign = _acting(None, services.resign, _("You resigned."))
long_think = _acting(None, services.declare_long_think, _("Long think declared."))
claim = _acting(ClaimForm, services.claim, _("Claim sent."))
conditionals = _acting(ConditionalsForm, services.set_conditionals, _("Conditional moves saved."))
conditionals_cancel = _acting(None, services.cancel_conditionals, _("Conditional moves cancelled."))
add_days = _acting(AddDaysForm, services.add_days, _("Days added."))
