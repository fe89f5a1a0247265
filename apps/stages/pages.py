"""What every stage-scoped page needs: finding the stage, the organizer gate, and showing an
action's refusal on the stage dashboard."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.errors import ActionError
from apps.core.pages import show_refusal
from apps.core.permissions import can_view_stage, is_organizer

from .models import Stage

# The address prefixes of the pages of one stage and of one group of it.
STAGE = "t/<slug:slug>/s/<id:order>/"
GROUP = STAGE + "g/<id:number>/"


def get_stage(slug: str, order: int) -> Stage:
    return get_object_or_404(
        Stage.objects.select_related("tournament"), tournament__slug=slug, order=order
    )


def visible_stage(request: HttpRequest, slug: str, order: int) -> Stage:
    """The stage, or 404 when the visitor may not see it yet (the public sees published ones)."""
    stage = get_stage(slug, order)
    if not can_view_stage(request.user, stage):
        raise Http404(_("No such stage."))
    return stage


def organizer_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Gate a stage view to the tournament's organizers; the view receives the stage.

    Visitors who are not signed in go to the login page, signed-in others get a 403 page.
    """

    @wraps(view)
    def gated(request: HttpRequest, slug: str, order: int, **kwargs) -> HttpResponse:
        stage = get_stage(slug, order)
        if not request.user.is_authenticated:
            back = request.get_full_path() if request.method == "GET" else manage_url(stage)
            return redirect_to_login(back)
        if not is_organizer(request.user, stage.tournament):
            raise PermissionDenied(
                _("Only the organizers of %(name)s may open this page.")
                % {"name": stage.tournament.name}
            )
        return view(request, stage, **kwargs)

    return gated


def manage_url(stage: Stage) -> str:
    return reverse("stage-manage", args=[stage.tournament.slug, stage.order])


def action_failed(request: HttpRequest, stage: Stage, error: ActionError) -> HttpResponse:
    """Show an action's refusal on the stage dashboard (nothing was changed)."""
    show_refusal(request, error)
    return redirect(manage_url(stage))
