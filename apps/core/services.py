"""Actions on core's own data: an account's display name (``Profile``).

Core is the bottom floor, so every app may call these (the demo names its organizer here).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from .audit import Action, record
from .errors import ActionError, ErrorCode
from .models import Profile
from .people import clean_display_name
from .permissions import Actor, require_signed_in


def clean_name(name: str | None) -> str:
    """``name`` stripped and checked, or an ActionError saying what is wrong with it."""
    try:
        return clean_display_name(name)
    except ValidationError as exc:
        raise ActionError(ErrorCode.INVALID_INPUT, " ".join(exc.messages)) from exc


def set_display_name(user: Actor, name: str) -> Profile:
    """Set the name others see for ``user``'s own account ('' clears it: the account is then
    shown by its full name or a neutral label, never its login name). Audited when it
    changes."""
    user = require_signed_in(user)
    name = clean_name(name)
    with transaction.atomic():
        profile, _created = Profile.objects.select_for_update(no_key=True).get_or_create(user=user)
        old = profile.display_name
        if old != name:
            profile.display_name = name
            profile.save(update_fields=["display_name"])
            record(Action.ACCOUNT_NAME_CHANGED, user, old=old, new=name)
    user.profile = profile
    return profile
