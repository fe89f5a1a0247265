"""What the result-entry pages of a group share with the closing pages: their addresses and
the gate that lets in only the group's TD and the tournament's organizers."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.permissions import can_enter_results
from apps.groups.models import Group
from apps.stages.pages import get_stage


def results_url(group: Group) -> str:
    return reverse(
        "group-results", args=[group.stage.tournament.slug, group.stage.order, group.number]
    )


def game_url(group: Group, number: int) -> str:
    stage = group.stage
    return reverse("game-result", args=[stage.tournament.slug, stage.order, group.number, number])


def result_entry_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Gate a group view to its TD and the organizers; the view receives the group.

    Visitors who are not signed in go to the login page, signed-in others get a 403 page.
    """

    @wraps(view)
    def gated(request: HttpRequest, slug: str, order: int, number: int, **kwargs) -> HttpResponse:
        stage = get_stage(slug, order)
        group = get_object_or_404(Group.objects.select_related("td"), stage=stage, number=number)
        group.stage = stage
        if not request.user.is_authenticated:
            back = request.get_full_path() if request.method == "GET" else results_url(group)
            return redirect_to_login(back)
        if not can_enter_results(request.user, group):
            raise PermissionDenied(
                _("Only the TD of group %(number)s and the organizers may enter its results.")
                % {"number": group.number}
            )
        return view(request, group, **kwargs)

    return gated
