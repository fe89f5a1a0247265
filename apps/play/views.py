"""The board of a game played on this server (``…/g/N/games/M/play/``): the position, the
clocks in days, the moves with their dates, and for its two players the forms of every action
(a move, a draw offer and its answer, resignation, a claim, conditional moves).

Each POST view parses its form, calls one action of ``services`` and redirects back to the
board with a message (a refusal is shown, nothing changes). static/js/play.js sends the same
forms to the API instead and swaps in the page's parts without a reload.
"""

from __future__ import annotations

from collections.abc import Callable

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
from .forms import ClaimForm, ConditionalsForm, MoveForm, TurnForm
from .models import PlayedGame
from .pages import board_of, board_url, played_game

ACTIONS = ("move", "draw_offer", "draw_accept", "draw_decline", "resign", "claim", "conditionals")


def _addresses(played: PlayedGame) -> tuple[dict[str, str], dict[str, str]]:
    """The page's form targets and the API addresses the script sends them to."""
    game, stage = played.game, played.stage
    args = [stage.tournament.slug, stage.order, game.group.number, game.number]
    pages = {name: reverse(f"game-play-{name.replace('_', '-')}", args=args) for name in ACTIONS}
    api = {name: f"/api/games/{game.pk}/{name.replace('_', '-')}/" for name in ACTIONS}
    api["move"] = f"/api/games/{game.pk}/moves/"
    api["state"] = f"/api/games/{game.pk}/play/"
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
        "claim_kinds": services.CLAIM_KINDS,
    }
    return render(request, "play/game.html", context)


def _acting(
    form_class: type[forms.Form], act: Callable[..., object], done: object
) -> Callable[..., HttpResponse]:
    """A POST view: the form parsed, the action ``act(played, actor=user, **cleaned)`` called,
    back to the board with ``done`` or the refusal's sentence."""

    @require_POST
    @login_required
    def view(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
        played = played_game(request, slug, order, number, game_number)
        form = form_class(request.POST)
        try:
            if not form.is_valid():
                first = next(iter(form.errors.values()))[0]
                raise ActionError(ErrorCode.INVALID_INPUT, str(first))
            act(played, actor=request.user, **form.cleaned_data)
        except ActionError as refused:
            if refused.code == ErrorCode.PERMISSION_DENIED:
                raise PermissionDenied(refused.message) from refused
            messages.error(request, refused.message)
        else:
            messages.success(request, str(done))
        return redirect(board_url(played.game))

    return view


move = _acting(MoveForm, services.make_move, _("Moved."))
draw_offer = _acting(TurnForm, services.offer_draw, _("Draw offered."))
draw_accept = _acting(TurnForm, services.accept_draw, _("Draw agreed."))
draw_decline = _acting(TurnForm, services.decline_draw, _("Draw declined."))
resign = _acting(TurnForm, services.resign, _("You resigned."))
claim = _acting(ClaimForm, services.claim, _("Claim sent."))
conditionals = _acting(ConditionalsForm, services.set_conditionals, _("Conditional moves saved."))
