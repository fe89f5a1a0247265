"""Players' profile pages: ``/players/{id}/`` (contacts for the player, the organizers of
their events and staff) and ``/players/me/`` (the signed-in player's own)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from apps.core.permissions import require_signed_in
from apps.entrants.models import Person

from .profiles import player_profile


def profile(request: HttpRequest, person_id: int) -> HttpResponse:
    person = get_object_or_404(Person.objects.select_related("user"), pk=person_id)
    if person.merged_into_id is not None:
        return redirect("player-profile", person.merged_into_id)
    profile = player_profile(person, request.user)
    if not profile.visible:
        raise Http404(_("There is no player %(id)s.") % {"id": person_id})
    return render(request, "players/profile.html", {"profile": profile, "person": person})


@login_required
def profile_mine(request: HttpRequest) -> HttpResponse:
    person = Person.objects.filter(user=require_signed_in(request.user)).first()
    if person is None:
        raise Http404(_("Your account has no player profile yet: claim an entry first."))
    return redirect("player-profile", person.pk)
