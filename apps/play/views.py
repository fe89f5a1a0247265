"""The board of a game played on this server (``…/g/N/games/M/play/``): the position, the
clocks in days, the moves with their dates, and for its two players the forms of every action
(a move, a draw offer and its answer, resignation, a claim, conditional moves).

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
from apps.core.permissions import Actor

from . import services
from .forms import ClaimForm, ConditionalsForm, MoveForm
from .models import PlayedGame
from .pages import CLAIM_LABELS, board_of, board_url, played_game

# Each action's page route (``game-play-<name>``) and the API route the script sends it to.
ACTIONS = {
    "move": "api-game-moves",
    "draw-offer": "api-game-draw-offer",
    "draw-accept": "api-game-draw-accept",
    "draw-decline": "api-game-draw-decline",
    "resign": "api-game-resign",
    "claim": "api-game-claim",
    "conditionals": "api-game-conditionals",
    "conditionals-cancel": "api-game-conditionals",  # DELETE
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
    }
    return render(request, "play/game.html", context)


Act = Callable[[Actor, PlayedGame, dict[str, Any]], object]


def _acting(
    form_class: type[forms.Form] | None, act: Act, done: object
) -> Callable[..., HttpResponse]:
    """A POST view: the form parsed, the action called by ``act(user, played, cleaned)``,
    back to the board with ``done`` or the refusal's sentence."""

    @require_POST
    @login_required
    def view(request: HttpRequest, slug: str, order: int, number: int, game_number: int):
        played = played_game(request, slug, order, number, game_number)
        form = form_class(request.POST) if form_class else None
        try:
            if form is not None and not form.is_valid():
                first = next(iter(form.errors.values()))[0]
                raise ActionError(ErrorCode.INVALID_INPUT, str(first))
            act(request.user, played, form.cleaned_data if form is not None else {})
        except ActionError as refused:
            if refused.code == ErrorCode.PERMISSION_DENIED:
                raise PermissionDenied(refused.message) from refused
            messages.error(request, refused.message)
        else:
            messages.success(request, str(done))
        return redirect(board_url(played.game))

    return view


move = _acting(
    MoveForm,
    lambda user, played, data: services.make_move(actor=user, game_id=played.pk, **data),
    _("Moved."),
)
draw_offer = _acting(
    None,
    lambda user, played, data: services.offer_draw(actor=user, game_id=played.pk),
    _("Draw offered."),
)
draw_accept = _acting(
    None,
    lambda user, played, data: services.accept_draw(actor=user, game_id=played.pk),
    _("Draw agreed."),
)
draw_decline = _acting(
    None,
    lambda user, played, data: services.decline_draw(actor=user, game_id=played.pk),
    _("Draw declined."),
)
resign = _acting(
    None,
    lambda user, played, data: services.resign(actor=user, game_id=played.pk),
    _("You resigned."),
)
claim = _acting(
    ClaimForm,
    lambda user, played, data: services.claim(actor=user, game_id=played.pk, **data),
    _("Claim sent."),
)
conditionals = _acting(
    ConditionalsForm,
    lambda user, played, data: services.set_conditionals(actor=user, game_id=played.pk, **data),
    _("Conditional moves saved."),
)
conditionals_cancel = _acting(
    None,
    lambda user, played, data: services.cancel_conditionals(actor=user, game_id=played.pk),
    _("Conditional moves cancelled."),
)
