"""Signed, expiring links: invitations (here) and entry claims (``apps.entrants.claims``,
on a lower floor so that every e-mail to an entrant can carry one).

A link carries a signed payload (Django's signing with the SECRET_KEY, a salt per kind, and a
timestamp): nothing is stored, a forged or altered link fails, and an old one expires after
``INVITATION_LINK_DAYS`` / ``CLAIM_LINK_DAYS``. What a link grants is checked again against
the database when it is used (the invitation still open, the entry's address unchanged and
not refused).
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing

from apps.core.links import read_link
from apps.entrants.claims import claim_token, read_claim_token

__all__ = ["claim_token", "invitation_token", "read_claim_token", "read_invitation_token"]

INVITATION_SALT = "closed-circle.accounts.invitation"


def invitation_token(invitation_id: int) -> str:
    return signing.dumps({"invitation": invitation_id}, salt=INVITATION_SALT)


def read_invitation_token(token: str) -> int:
    """The invitation's id, or an ActionError for a forged or expired link."""
    return int(read_link(token, INVITATION_SALT, settings.INVITATION_LINK_DAYS)["invitation"])
