"""The "Leave" section of "My games" (apps/accounts) posts here: take a leave, cancel one.
Each view parses the form, calls one action and goes back to "My games"; a refusal is shown
there and changes nothing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError
from apps.core.pages import SignedInRequest

from .leave import cancel_leave, take_leave
from .leave_forms import LeaveForm

BACK = "me"


def _back() -> HttpResponse:
    return redirect(reverse(BACK) + "#leave")


@login_required
@require_POST
def take(request: SignedInRequest) -> HttpResponse:
    form = LeaveForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return _back()
    try:
        leave = take_leave(
            request.user,
            form.cleaned_data["starts_on"],
            form.cleaned_data["ends_on"],
            special=form.cleaned_data["special"],
        )
    except ActionError as error:
        messages.error(request, error.message)
        return _back()
    messages.success(
        request,
        _("Your leave from %(first)s to %(last)s is announced; your opponents are told.")
        % {"first": leave.starts_on, "last": leave.ends_on},
    )
    return _back()


@login_required
@require_POST
def cancel(request: SignedInRequest, leave_id: int) -> HttpResponse:
    try:
        leave = cancel_leave(request.user, leave_id)
    except ActionError as error:
        messages.error(request, error.message)
        return _back()
    messages.success(
        request,
        _("Your leave from %(first)s to %(last)s is cancelled.")
        % {"first": leave.starts_on, "last": leave.ends_on},
    )
    return _back()
