"""The page where a signed-in user turns kinds of e-mail on or off (under "my games")."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.core.pages import SignedInRequest

from .forms import PreferencesForm
from .services import preferences_of, update_preferences


@login_required
def preferences(request: SignedInRequest) -> HttpResponse:
    form = PreferencesForm(
        request.POST if request.method == "POST" else None, instance=preferences_of(request.user)
    )
    if request.method == "POST":
        if form.is_valid():
            update_preferences(request.user, **form.cleaned_data)
            messages.success(request, _("Your e-mail preferences are saved."))
            return redirect("me-notifications")
        return render(request, "notifications/preferences.html", {"form": form}, status=400)
    return render(request, "notifications/preferences.html", {"form": form})
