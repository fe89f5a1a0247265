"""Rate limits (DRF throttles, counted in the default cache), used by the API and the pages.

``sign_in``: attempts to sign in, obtain a token, or have a password-reset or claim e-mail
sent, per client address — the same count for the pages and the API. ``write``: every
POST/PUT/PATCH/DELETE of the API, per user (per address for the public). Rates are
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, read when a request is counted.
"""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class _SettingsRate(SimpleRateThrottle):
    scope: str

    def get_rate(self) -> str | None:
        # Texts such as "10/minute" (the stubs say numbers).
        rates: dict[str, str | None] = api_settings.DEFAULT_THROTTLE_RATES  # type: ignore[assignment]
        return rates.get(self.scope)


class SignInRateThrottle(_SettingsRate):
    """Sign-in attempts and e-mail requests of one client address."""

    scope = "sign_in"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class WriteRateThrottle(_SettingsRate):
    """Writes of one user (or, signed out, one client address); reads are not counted."""

    scope = "write"

    def allow_request(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request, view) -> str:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            ident = f"user-{user.pk}"
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def sign_in_allowed(request) -> tuple[bool, float | None]:
    """Count one sign-in attempt of a page request: (allowed, seconds to wait if not)."""
    throttle = SignInRateThrottle()
    # A page's request, no API view (which the rate does not read; the stubs want one).
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return True, None
    return False, throttle.wait()
