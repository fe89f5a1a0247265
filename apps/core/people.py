"""People's names: what the pages, the API and the e-mails call an account.

Every account may carry a display name (:class:`apps.core.models.Profile`); wherever a person
is shown to others — a group's TD, who changed a result — :func:`display_name` gives the name
to show. It is never the login name: an account without a display name or a full name is
shown by a neutral label with its number ("TD 12", "Organizer 3", "Account 7").
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DISPLAY_NAME_MAX_LENGTH = 100

# Characters a name may not hold: control characters (C0, C1, DEL), line and paragraph
# separators, and the bidirectional overrides and isolates (they reorder the text around
# the name on the page, e.g. to disguise it).
_BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def _forbidden(char: str) -> bool:
    return unicodedata.category(char) in {"Cc", "Zl", "Zp"} or char in _BIDI_CONTROLS


def holds_control_character(value: str) -> bool:
    """Whether ``value`` holds a character a name may not hold (see ``_forbidden``)."""
    return any(_forbidden(char) for char in value)


def validate_display_name(value: str) -> None:
    """A ValidationError when ``value`` is too long or holds a control character."""
    if len(value) > DISPLAY_NAME_MAX_LENGTH:
        raise ValidationError(
            _("A name has at most %(max)s characters; this one has %(count)s.")
            % {"max": DISPLAY_NAME_MAX_LENGTH, "count": len(value)},
            code="max_length",
        )
    if holds_control_character(value):
        raise ValidationError(
            _("A name cannot contain control characters (tabs, line breaks and the like)."),
            code="control_characters",
        )


def clean_display_name(value: str | None) -> str:
    """``value`` without surrounding blanks, validated (a ValidationError if it is not a name)."""
    value = (value or "").strip()
    validate_display_name(value)
    return value


def stored_display_name(user: User | None) -> str:
    """The display name the account set ('' if none; no query when the profile was loaded
    with ``select_related("…profile")``)."""
    if user is None:
        return ""
    try:
        profile = user.profile
    except (ObjectDoesNotExist, AttributeError):
        return ""
    return (profile.display_name or "").strip() if profile is not None else ""


def display_name(user: User | None, *, role: str | None = None) -> str:
    """The name to show others for ``user``: the profile's display name, else the full name,
    else a neutral label with the account's number — ``role`` and the number when a role is
    given ("TD 12"), else "Organizer 3" for staff and "Account 7" for everyone else. Never the
    login name. '' for no user."""
    if user is None:
        return ""
    name = stored_display_name(user) or (user.get_full_name() or "").strip()
    if name:
        return name
    if role:
        return _("%(role)s %(number)s") % {"role": role, "number": user.pk}
    if getattr(user, "is_staff", False):
        return _("Organizer %(number)s") % {"number": user.pk}
    return _("Account %(number)s") % {"number": user.pk}


def td_name(user: User | None) -> str:
    """A group's tournament director as others see them ("TD 12" without a name)."""
    return display_name(user, role=_("TD"))
