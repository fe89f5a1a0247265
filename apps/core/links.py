"""Reading a signed, expiring link (Django's signing with the SECRET_KEY, a salt per kind of
link, a timestamp): a forged or altered link and an old one are refused with a sentence.
The kinds of link are their apps' (an invitation: ``apps.accounts.links``; an entry's claim:
``apps.entrants.claims``)."""

from __future__ import annotations

from datetime import timedelta

from django.core import signing
from django.utils.translation import gettext as _

from .errors import ActionError, ErrorCode


def read_link(token: str, salt: str, days: int) -> dict:
    """The payload of a link signed with ``salt`` at most ``days`` days ago, or an
    ActionError (400) saying why the link does not work."""
    try:
        return signing.loads(token, salt=salt, max_age=timedelta(days=days))
    except signing.SignatureExpired as exc:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("This link has expired (links are valid for %(days)s days); ask for a new one.")
            % {"days": days},
        ) from exc
    except signing.BadSignature as exc:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("This link is not valid; copy the whole address from the e-mail."),
        ) from exc
