"""Account actions: invitations, entries linked to accounts (by an organizer, or claimed by the
player through an e-mailed link), API tokens.

Each action takes the acting user, checks the permission with ``apps.core.permissions``, runs
in one transaction with its audit event, and sends its e-mail with ``on_commit``.
"""

from __future__ import annotations

import secrets
from collections import defaultdict

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from apps.core.audit import record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer, require_signed_in
from apps.entrants.models import Entrant
from apps.groups.models import Group
from apps.stages.models import Stage, Tournament

from . import tasks
from .links import read_claim_token, read_invitation_token
from .models import Invitation


def _clean_email(email: str) -> str:
    email = (email or "").strip()
    try:
        validate_email(email)
    except ValidationError as exc:
        raise ActionError(
            ErrorCode.INVALID_INPUT, _("%(email)r is not an e-mail address.") % {"email": email}
        ) from exc
    return email


# ---------------------------------------------------------------------------
# Invitations
# ---------------------------------------------------------------------------


def invite(
    user,
    tournament: Tournament,
    *,
    email: str,
    role: str,
    stage: Stage | None = None,
    group_number: int | None = None,
) -> Invitation:
    """Invite a person by e-mail as co-organizer of ``tournament`` or as TD of group
    ``group_number`` of ``stage`` (organizers); the e-mail goes out when this commits."""
    require_organizer(user, tournament)
    email = _clean_email(email)
    if role == Invitation.Role.TD:
        if stage is None or stage.tournament_id != tournament.pk or not group_number:
            raise ActionError(
                ErrorCode.INVALID_INPUT, _("Name the stage and the group the TD will direct.")
            )
        if not Group.objects.filter(stage=stage, number=group_number).exists():
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                _("%(stage)s has no group %(number)s (is it drawn?).")
                % {"stage": stage.get_kind_display(), "number": group_number},
            )
    elif role == Invitation.Role.ORGANIZER:
        stage, group_number = None, None
    else:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("%(role)r is not a role; invite as organizer or td.") % {"role": role},
        )
    with transaction.atomic():
        invitation = Invitation.objects.create(
            tournament=tournament,
            role=role,
            stage=stage,
            group_number=group_number,
            email=email,
            invited_by=user,
        )
        record(
            "invitation.sent",
            user,
            tournament=tournament,
            stage=stage,
            invitation=invitation.pk,
            email=email,
            role=role,
            group_number=group_number,
        )
        transaction.on_commit(lambda: tasks.send_invitation.delay(invitation.pk))
    return invitation


def invitation_for(token: str) -> Invitation:
    """The invitation a link names (for showing it), or an ActionError."""
    invitation = (
        Invitation.objects.select_related("tournament", "stage", "invited_by", "accepted_by")
        .filter(pk=read_invitation_token(token))
        .first()
    )
    if invitation is None:
        raise ActionError(ErrorCode.NOT_FOUND, _("This invitation was withdrawn."))
    return invitation


def accept_invitation(user, token: str) -> Invitation:
    """Grant the invitation's role to ``user``. Accepting again as the same user changes
    nothing; an invitation accepted by another account is refused."""
    require_signed_in(user)
    invitation_id = read_invitation_token(token)
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update(of=("self",))
            .select_related("tournament", "stage")
            .filter(pk=invitation_id)
            .first()
        )
        if invitation is None:
            raise ActionError(ErrorCode.NOT_FOUND, _("This invitation was withdrawn."))
        if invitation.accepted_at is not None:
            if invitation.accepted_by_id == user.pk:
                return invitation
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("This invitation was accepted already, by another account."),
            )
        details = {}
        group = None
        if invitation.role == Invitation.Role.ORGANIZER:
            invitation.tournament.organizers.add(user)
        else:
            group = (
                Group.objects.select_for_update(of=("self",))
                .select_related("td")
                .filter(stage=invitation.stage, number=invitation.group_number)
                .first()
            )
            if group is None:
                raise ActionError(
                    ErrorCode.WRONG_STATUS,
                    _("Group %(number)s no longer exists; ask the organizers for a new invitation.")
                    % {"number": invitation.group_number},
                )
            details = {"old_td": group.td.get_username() if group.td else ""}
            group.td = user
            group.save(update_fields=["td"])
        invitation.accepted_at = timezone.now()
        invitation.accepted_by = user
        invitation.save(update_fields=["accepted_at", "accepted_by"])
        record(
            "invitation.accepted",
            user,
            tournament=invitation.tournament,
            stage=invitation.stage,
            group=group,
            invitation=invitation.pk,
            role=invitation.role,
            **details,
        )
    return invitation


def _new_user(username: str, email: str, password: str):
    """A new account (the caller validated the username and the password)."""
    users = get_user_model().objects
    if users.filter(username__iexact=username).exists():
        raise ActionError(
            ErrorCode.CONFLICT, _("The user name %(name)r is taken.") % {"name": username}
        )
    user = users.create_user(username, email, password)
    record("account.created", user, username=username)
    return user


def join_by_invitation(token: str, *, username: str, password: str):
    """Create an account for the invited address and accept the invitation with it, in one
    transaction. Returns the new user."""
    invitation = invitation_for(token)
    if invitation.accepted_at is not None:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("This invitation was accepted already; sign in with the account that accepted it."),
        )
    with transaction.atomic():
        user = _new_user(username, invitation.email, password)
        accept_invitation(user, token)
    return user


# ---------------------------------------------------------------------------
# Entries and accounts
# ---------------------------------------------------------------------------


def link_entrant(user, entrant: Entrant, player) -> Entrant:
    """Link an entry to a player's account, or unlink it with ``player=None`` (organizers)."""
    require_organizer(user, entrant.tournament)
    with transaction.atomic():
        entrant = (
            Entrant.objects.select_for_update(of=("self",))
            .select_related("tournament", "user")
            .get(pk=entrant.pk)
        )
        old = entrant.user.get_username() if entrant.user else ""
        entrant.user = player
        entrant.save(update_fields=["user"])
        record(
            "entrant.linked",
            user,
            tournament=entrant.tournament,
            entrant=entrant.code,
            old=old,
            new=player.get_username() if player else "",
        )
    return entrant


def link_entrants_by_email(user, entrants) -> int:
    """Link each unlinked entry to the one active account with the same e-mail address
    (organizers of every entry's tournament); entries whose address matches no account, or
    several, are left alone. Returns how many were linked."""
    entrants = list(entrants)
    for tournament in {e.tournament for e in entrants}:
        require_organizer(user, tournament)
    addresses = {e.email.lower() for e in entrants if e.email and e.user_id is None}
    accounts = defaultdict(list)
    matching = get_user_model().objects.annotate(address=Lower("email"))
    for account in matching.filter(is_active=True, address__in=addresses):
        accounts[account.address].append(account)
    linked = 0
    with transaction.atomic():
        for entrant in entrants:
            matches = accounts.get(entrant.email.lower(), []) if entrant.email else []
            if entrant.user_id is None and len(matches) == 1:
                link_entrant(user, entrant, matches[0])
                linked += 1
    return linked


def send_claim_links(user, entrants) -> int:
    """E-mail every unlinked entry with an address a link to claim it (organizers); one
    e-mail per address. Returns how many entries got a link."""
    entrants = [e for e in entrants if e.email and e.user_id is None]
    for tournament in {e.tournament for e in entrants}:
        require_organizer(user, tournament)
    if not entrants:
        return 0
    ids = [e.pk for e in entrants]
    nonce = secrets.token_hex(8)
    with transaction.atomic():
        for tournament in {e.tournament for e in entrants}:
            record(
                "entrant.claim_links_sent",
                user,
                tournament=tournament,
                entrants=sorted(e.code for e in entrants if e.tournament_id == tournament.pk),
            )
        transaction.on_commit(lambda: tasks.send_claim_links.delay(ids, nonce))
    return len(ids)


def request_claim_links(email: str) -> int:
    """Anyone may ask for claim links: they go to ``email`` only, for the unlinked entries
    with that address (the answer never says whether there were any)."""
    email = _clean_email(email)
    ids = list(
        Entrant.objects.filter(email__iexact=email, user__isnull=True).values_list("pk", flat=True)
    )
    if ids:
        nonce = secrets.token_hex(8)
        transaction.on_commit(lambda: tasks.send_claim_links.delay(ids, nonce))
    return len(ids)


def claimable_entrant(token: str) -> Entrant:
    """The entry a claim link names, if the link still matches it (for showing it)."""
    entrant_id, email = read_claim_token(token)
    entrant = Entrant.objects.select_related("tournament", "user").filter(pk=entrant_id).first()
    if entrant is None or entrant.email.lower() != email:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _(
                "This link no longer matches the entry (its e-mail address changed); ask for a "
                "new link."
            ),
        )
    return entrant


def claim_entry(user, token: str) -> Entrant:
    """Link the entry named by a claim link to ``user``. Claiming it again changes nothing;
    an entry linked to another account is refused."""
    require_signed_in(user)
    entrant_id = claimable_entrant(token).pk
    with transaction.atomic():
        entrant = (
            Entrant.objects.select_for_update(of=("self",))
            .select_related("tournament")
            .get(pk=entrant_id)
        )
        if entrant.user_id == user.pk:
            return entrant
        if entrant.user_id is not None:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "This entry belongs to another account already; ask the organizers if that "
                    "is wrong."
                ),
            )
        entrant.user = user
        entrant.save(update_fields=["user"])
        record("entrant.claimed", user, tournament=entrant.tournament, entrant=entrant.code)
    return entrant


def join_by_claim(token: str, *, username: str, password: str):
    """Create an account with the entry's address and claim the entry with it, in one
    transaction. Returns the new user."""
    entrant = claimable_entrant(token)
    if entrant.user_id is not None:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("This entry belongs to an account already; sign in with it."),
        )
    with transaction.atomic():
        user = _new_user(username, entrant.email, password)
        claim_entry(user, token)
    return user


# ---------------------------------------------------------------------------
# API tokens
# ---------------------------------------------------------------------------


def api_token(user) -> Token | None:
    return Token.objects.filter(user=user).first()


def obtain_token(user) -> Token:
    """The user's API token, made on first use (after the caller checked the password)."""
    require_signed_in(user)
    with transaction.atomic():
        token, created = Token.objects.get_or_create(user=user)
        if created:
            record("account.token_created", user)
    return token


def regenerate_token(user) -> Token:
    """A new API token for ``user``; the old one stops working."""
    require_signed_in(user)
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        token = Token.objects.create(user=user)
        record("account.token_created", user)
    return token
