"""Seeds: the text a draw's (or a format lab run's) random numbers come from. One rule for
both: at most ``MAX_SEED_LENGTH`` characters, no control characters (a NUL would not even
reach PostgreSQL), surrounding blanks dropped."""

from __future__ import annotations

import secrets

from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.people import holds_control_character

MAX_SEED_LENGTH = 200


def generate_seed(prefix: str = "CC") -> str:
    """A seed for organizers who have no lottery result to hand (shown and recorded)."""
    return f"{prefix}-{timezone.now():%Y%m%d}-{secrets.token_hex(8)}"


def seed_problem(seed: str) -> str | None:
    """Why ``seed`` (already stripped) cannot be used, or None."""
    if len(seed) > MAX_SEED_LENGTH:
        return _("The seed is longer than %(max)s characters.") % {"max": MAX_SEED_LENGTH}
    if holds_control_character(seed):
        return _("A seed cannot contain control characters (tabs, line breaks and the like).")
    return None
