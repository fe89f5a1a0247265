"""Signed, expiring links: invitations and entry claims.

A link carries a signed payload (Django's signing with the SECRET_KEY, a salt per kind, and a
timestamp): nothing is stored, a forged or altered link fails, and an old one expires after
``INVITATION_LINK_DAYS`` / ``CLAIM_LINK_DAYS``. What a link grants is checked again against
the database when it is used (the invitation still open, the entry's address unchanged).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.utils.translation import gettext as _

from apps.core.errors import ActionError, ErrorCode

INVITATION_SALT = "closed-circle.accounts.invitation"
CLAIM_SALT = "closed-circle.accounts.claim"


def _read(token: str, salt: str, days: int) -> dict:
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


def invitation_token(invitation_id: int) -> str:
    return signing.dumps({"invitation": invitation_id}, salt=INVITATION_SALT)


def read_invitation_token(token: str) -> int:
    """The invitation's id, or an ActionError for a forged or expired link."""
    return int(_read(token, INVITATION_SALT, settings.INVITATION_LINK_DAYS)["invitation"])


def claim_token(entrant_id: int, email: str) -> str:
    return signing.dumps({"entrant": entrant_id, "email": email.lower()}, salt=CLAIM_SALT)


def read_claim_token(token: str) -> tuple[int, str]:
    """The entrant's id and the address the link was sent to."""
    data = _read(token, CLAIM_SALT, settings.CLAIM_LINK_DAYS)
    return int(data["entrant"]), str(data["email"])
