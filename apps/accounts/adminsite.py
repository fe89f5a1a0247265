"""The Django admin with the site's sign-in rate limit on its login page.

Without it, ``/admin/login/`` took any number of password guesses (30 wrong ones in 17 s, then
the right one). Attempts there count with the sign-in page's and the API's
(``sign_in`` rate, per client address).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django.utils.translation import gettext as _

from .throttles import sign_in_allowed

TOO_MANY = 429


class RateLimitedAdminSite(admin.AdminSite):
    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        if request.method == "POST":
            allowed, wait = sign_in_allowed(request)
            if not allowed:
                message = _(
                    "Too many attempts from your address; try again in %(seconds)s seconds."
                ) % {"seconds": int(wait or 60)}
                return HttpResponse(
                    f"<!doctype html><title>429</title><p>{escape(message)}</p>",
                    status=TOO_MANY,
                    headers={"Retry-After": str(int(wait or 60))},
                )
        return super().login(request, extra_context)


class ClosedCircleAdminConfig(AdminConfig):
    """``django.contrib.admin`` with :class:`RateLimitedAdminSite` as ``admin.site``."""

    default_site = "apps.accounts.adminsite.RateLimitedAdminSite"
