"""The shared toolkit of the HTML pages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from .errors import ActionError, ErrorCode

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class SignedInRequest(HttpRequest):
    """For the type checker: the request of a page only signed-in users reach
    (``login_required``), whose user is an account. Never made; annotate such views with it."""

    user: User


def show_refusal(request: HttpRequest, error: ActionError) -> None:
    """An action's refusal as a message on the next page (nothing was changed); a permission
    refusal is a 403 page instead."""
    if error.code == ErrorCode.PERMISSION_DENIED:
        raise PermissionDenied(error.message)
    messages.error(request, error.message)
