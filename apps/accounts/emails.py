"""The e-mails of accounts: an invitation, and links to claim entries."""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.people import display_name
from apps.entrants.claims import refused
from apps.entrants.models import Entrant
from apps.notifications.delivery import Message, absolute_url
from apps.notifications.models import Kind
from apps.notifications.services import in_site_language

from .links import claim_token, invitation_token
from .models import Invitation


@in_site_language
def invitation_message(invitation_id: int) -> Message | None:
    invitation = (
        Invitation.objects.select_related("tournament", "stage", "invited_by__profile")
        .filter(pk=invitation_id, accepted_at__isnull=True)
        .first()
    )
    if invitation is None:
        return None
    inviter = invitation.invited_by
    context = {
        "invitation": invitation,
        "inviter": display_name(inviter) if inviter else "",
        "url": absolute_url(reverse("invitation", args=[invitation_token(invitation.pk)])),
        "days": settings.INVITATION_LINK_DAYS,
    }
    return Message(
        Kind.INVITATION,
        str(invitation.pk),
        invitation.email,
        _("Invitation: %(role)s, %(tournament)s")
        % {"role": invitation.role_text, "tournament": invitation.tournament.name},
        render_to_string("accounts/email/invitation.txt", context),
    )


@in_site_language
def claim_messages(entrant_ids: list[int], nonce: str) -> list[Message]:
    """One e-mail per address, with a claim link for each of its unlinked entries."""
    entrants = Entrant.objects.filter(pk__in=entrant_ids, user__isnull=True).exclude(email="")
    by_address = defaultdict(list)
    for entrant in entrants.select_related("tournament", "claim_refusal").order_by(
        "tournament__name", "code"
    ):
        if not refused(entrant):  # "not me": that address gets no more links for the entry
            by_address[entrant.email.lower()].append(entrant)
    messages = []
    for address, entries in by_address.items():
        links = [
            (e, absolute_url(reverse("claim", args=[claim_token(e.pk, e.email)]))) for e in entries
        ]
        messages.append(
            Message(
                Kind.CLAIM,
                nonce,
                address,
                _("Link your entries to your Closed Circle account"),
                render_to_string(
                    "accounts/email/claim.txt", {"links": links, "days": settings.CLAIM_LINK_DAYS}
                ),
            )
        )
    return messages
