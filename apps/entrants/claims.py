"""Claim links: a signed, expiring link e-mailed to an entry's address lets the person there
link the entry to their account (``apps.accounts`` makes the account and claims the entry),
or say the entry is not theirs (a :class:`~.models.ClaimRefusal`).

The link's payload is the entry's id and the address it was sent to; nothing is stored.
It works for ``CLAIM_LINK_DAYS`` days, and only while the entry still has that address and
nobody there refused it. It lives on this floor so that every e-mail to an entrant
(``apps.notifications``, ``apps.results``) can carry one.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing

from apps.core.links import read_link

from .models import ClaimRefusal, Entrant

# Kept from when the links were the accounts app's alone: links sent before still work.
CLAIM_SALT = "closed-circle.accounts.claim"


def claim_token(entrant_id: int, email: str) -> str:
    return signing.dumps({"entrant": entrant_id, "email": email.lower()}, salt=CLAIM_SALT)


def read_claim_token(token: str) -> tuple[int, str]:
    """The entrant's id and the address the link was sent to (or an ActionError for a forged
    or expired link)."""
    data = read_link(token, CLAIM_SALT, settings.CLAIM_LINK_DAYS)
    return int(data["entrant"]), str(data["email"])


def claim_days() -> int:
    return int(settings.CLAIM_LINK_DAYS)


def refused(entrant: Entrant) -> bool:
    """Whether the person at the entry's present address said the entry is not theirs (a
    refusal of an earlier address counts no more). One query unless ``claim_refusal`` was
    read with the entrant."""
    try:
        refusal = entrant.claim_refusal
    except ClaimRefusal.DoesNotExist:
        return False
    return refusal.stands_for(entrant.email)
