"""Account actions: display names, the right to create tournaments (granted by staff),
invitations, a stage's TDs (assigned or invited in bulk), entries linked to accounts (by an
organizer, or claimed by the player through an e-mailed link), API tokens.

Each action takes the acting user, checks the permission with ``apps.core.permissions``, runs
in one transaction with its audit event, and sends its e-mail with ``on_commit``.
"""

from __future__ import annotations

import csv
import secrets
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.authtoken.models import Token

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.people import display_name
from apps.core.permissions import Actor, require_organizer, require_signed_in
from apps.core.services import clean_name, set_display_name
from apps.entrants.claims import read_claim_token, refused
from apps.entrants.models import ClaimRefusal, Entrant
from apps.entrants.people import link_people
from apps.groups.models import Group
from apps.groups.services import assign_td
from apps.stages.models import Stage, Tournament

from . import tasks
from .links import read_invitation_token
from .models import Invitation

if TYPE_CHECKING:
    from django.contrib.auth.models import User


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
# The right to create tournaments (staff grant it)
# ---------------------------------------------------------------------------

ORGANIZER_PERMISSION = ("stages", "add_tournament")


def organizer_permission() -> Permission:
    """Django's model permission ``stages.add_tournament``: the right to create tournaments."""
    app_label, codename = ORGANIZER_PERMISSION
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


def _require_staff(user: Actor) -> None:
    require_signed_in(user)
    if not (user.is_active and user.is_staff):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only staff may grant or take away the right to create tournaments."),
        )


def organizer_right_holders() -> QuerySet:
    """The active accounts that may create tournaments: granted the permission directly or
    through a group, or superusers."""
    permission = organizer_permission()
    return (
        get_user_model()
        .objects.filter(
            Q(user_permissions=permission)
            | Q(groups__permissions=permission)
            | Q(is_superuser=True),
            is_active=True,
        )
        .distinct()
    )


@dataclass(frozen=True)
class OrganizerRight:
    """Whether an account may create tournaments, and how."""

    account: Any  # the user
    holds: bool  # the account may create tournaments
    direct: bool  # granted to the account itself (staff can take this away here)

    @property
    def inherited(self) -> bool:
        """Held through a group or as a superuser (not taken away by revoking)."""
        return self.holds and not self.direct


def organizer_rights(accounts: Iterable[User]) -> dict[int, OrganizerRight]:
    """Each account's right to create tournaments, by id (two queries)."""
    accounts = list(accounts)
    ids = [a.pk for a in accounts]
    permission = organizer_permission()
    direct = set(
        get_user_model()
        .objects.filter(pk__in=ids, user_permissions=permission)
        .values_list("pk", flat=True)
    )
    held = set(organizer_right_holders().filter(pk__in=ids).values_list("pk", flat=True))
    return {a.pk: OrganizerRight(a, a.pk in held, a.pk in direct) for a in accounts}


def organizer_right(account: User) -> OrganizerRight:
    return organizer_rights([account])[account.pk]


def _set_organizer_right(user: Actor, account: User, grant: bool) -> OrganizerRight:
    _require_staff(user)
    if grant and not account.is_active:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("%(name)s's account is deactivated; reactivate it first.")
            % {"name": display_name(account)},
        )
    permission = organizer_permission()
    with transaction.atomic():
        account = get_user_model().objects.select_for_update(no_key=True).get(pk=account.pk)
        holds_directly = account.user_permissions.filter(pk=permission.pk).exists()
        if grant and not holds_directly:
            account.user_permissions.add(permission)
            record(
                Action.ORGANIZER_RIGHT_GRANTED,
                user,
                account=account.pk,
                username=account.get_username(),
            )
        elif not grant and holds_directly:
            account.user_permissions.remove(permission)
            record(
                Action.ORGANIZER_RIGHT_REVOKED,
                user,
                account=account.pk,
                username=account.get_username(),
            )
    # A fresh copy: the account's permission cache does not see the change.
    return organizer_right(get_user_model().objects.get(pk=account.pk))


def grant_organizer_right(user: Actor, account: User) -> OrganizerRight:
    """Let ``account`` create tournaments (staff). Granting it again changes nothing."""
    return _set_organizer_right(user, account, grant=True)


def revoke_organizer_right(user: Actor, account: User) -> OrganizerRight:
    """Take away the right to create tournaments granted to ``account`` (staff). A right held
    through a group or as a superuser stays (the answer says so)."""
    return _set_organizer_right(user, account, grant=False)


# ---------------------------------------------------------------------------
# Invitations
# ---------------------------------------------------------------------------


def invite(
    user: Actor,
    tournament: Tournament,
    *,
    email: str,
    role: str,
    stage: Stage | None = None,
    group_number: int | None = None,
) -> Invitation:
    """Invite a person by e-mail as co-organizer of ``tournament`` or as TD of group
    ``group_number`` of ``stage`` (organizers); the e-mail goes out when this commits."""
    user = require_organizer(user, tournament)
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
            Action.INVITATION_SENT,
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
        Invitation.objects.select_related(
            "tournament", "stage", "invited_by", "accepted_by__profile"
        )
        .filter(pk=read_invitation_token(token))
        .first()
    )
    if invitation is None:
        raise ActionError(ErrorCode.NOT_FOUND, _("This invitation was withdrawn."))
    return invitation


def accept_invitation(user: Actor, token: str) -> Invitation:
    """Grant the invitation's role to ``user``. Accepting again as the same user changes
    nothing; an invitation accepted by another account is refused."""
    user = require_signed_in(user)
    invitation_id = read_invitation_token(token)
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update(no_key=True, of=("self",))
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
            assert invitation.group_number is not None  # a TD's invitation names its group
            group = (
                Group.objects.select_for_update(no_key=True, of=("self",))
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
            Action.INVITATION_ACCEPTED,
            user,
            tournament=invitation.tournament,
            stage=invitation.stage,
            group=group,
            invitation=invitation.pk,
            role=invitation.role,
            **details,
        )
    return invitation


def _new_user(username: str, email: str, password: str, name: str = "") -> User:
    """A new account (the caller validated the username and the password) with its display
    name."""
    users = get_user_model().objects
    if users.filter(username__iexact=username).exists():
        raise ActionError(
            ErrorCode.CONFLICT, _("The user name %(name)r is taken.") % {"name": username}
        )
    name = clean_name(name)
    user = users.create_user(username, email, password)
    record(Action.ACCOUNT_CREATED, user, username=username)
    if name:
        set_display_name(user, name)
    return user


def join_by_invitation(token: str, *, username: str, password: str, display_name: str = "") -> User:
    """Create an account for the invited address (with the name others will see) and accept
    the invitation with it, in one transaction. Returns the new user."""
    invitation = invitation_for(token)
    if invitation.accepted_at is not None:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("This invitation was accepted already; sign in with the account that accepted it."),
        )
    with transaction.atomic():
        user = _new_user(username, invitation.email, password, display_name)
        accept_invitation(user, token)
    return user


# ---------------------------------------------------------------------------
# A stage's TDs, in bulk
# ---------------------------------------------------------------------------

TD_CSV_HEADER = ["group", "email"]


class TdAction:
    ASSIGN = "assign"  # an account has the address: it becomes the group's TD
    UNCHANGED = "unchanged"  # that account is the group's TD already
    INVITE = "invite"  # no account has the address: it is invited as the group's TD


@dataclass
class TdRow:
    """One group's TD as a file (or the page's form) names it."""

    line: int
    group: Group
    email: str
    action: str
    account: Any = None  # the user with the address (None: invited)

    @property
    def account_name(self) -> str:
        return display_name(self.account) if self.account is not None else ""


@dataclass
class TdPlan:
    """What assigning a stage's TDs does (or did), row by row."""

    stage: Stage
    rows: list[TdRow] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(1 for row in self.rows if row.action == action)

    @property
    def assigned(self) -> int:
        return self.count(TdAction.ASSIGN)

    @property
    def invited(self) -> int:
        return self.count(TdAction.INVITE)

    @property
    def unchanged(self) -> int:
        return self.count(TdAction.UNCHANGED)


def parse_td_csv(text: str) -> list[tuple[int, str, str | None]]:
    """The rows of a TD file as (line, group, email): columns ``group,email``, an optional
    header row ``group,email``, blank lines skipped; ``email`` is None for a row with more
    than two columns. :func:`plan_tds` checks them."""
    rows: list[tuple[int, str, str | None]] = []
    for line, cells in enumerate(csv.reader((text or "").lstrip("\ufeff").splitlines()), 1):
        cells = [cell.strip() for cell in cells]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        if not rows and [cell.lower() for cell in cells] == TD_CSV_HEADER:
            continue
        if len(cells) > 2:
            rows.append((line, cells[0], None))
        else:
            rows.append((line, cells[0], cells[1] if len(cells) == 2 else ""))
    return rows


def plan_tds(stage: Stage, rows: list[tuple[int, str, str | None]]) -> TdPlan:
    """Check every row against the stage's groups and the accounts; a BAD_ROWS ActionError
    lists every bad row (an unknown group, a bad or ambiguous address, a group named twice)."""
    groups = {g.number: g for g in Group.objects.filter(stage=stage).select_related("td")}
    bad: list[dict] = []
    checked: list[tuple[int, Group, str]] = []
    seen: dict[int, int] = {}
    for line, number_text, email in rows:
        problems = []
        group = None
        try:
            number = int(number_text)
        except (TypeError, ValueError):
            problems.append(
                _("%(value)r is not a group number (the columns are group,email).")
                % {"value": number_text}
            )
        else:
            group = groups.get(number)
            if group is None:
                if groups:
                    problems.append(
                        _("%(stage)s has no group %(number)s (its groups are 1 to %(last)s).")
                        % {
                            "stage": stage.get_kind_display(),
                            "number": number,
                            "last": max(groups),
                        }
                    )
                else:
                    problems.append(
                        _("%(stage)s has no group %(number)s: it is not drawn yet.")
                        % {"stage": stage.get_kind_display(), "number": number}
                    )
            elif number in seen:
                problems.append(
                    _("Group %(number)s is named twice (lines %(first)s and %(line)s).")
                    % {"number": number, "first": seen[number], "line": line}
                )
            else:
                seen[number] = line
        if email is None:
            problems.append(_("A row has two columns: group,email (this one has more)."))
        else:
            try:
                validate_email(email)
            except ValidationError:
                problems.append(
                    _("%(email)r is not an e-mail address.") % {"email": email}
                    if email
                    else _("The e-mail address is missing.")
                )
        if problems:
            bad.append({"line": line, "message": " ".join(problems)})
        elif group is not None and email is not None:
            checked.append((line, group, email))
    accounts: dict[str, list] = defaultdict(list)
    addresses = {email.lower() for _line, _group, email in checked}
    users = get_user_model().objects.annotate(address=Lower("email"))
    for account in users.filter(is_active=True, address__in=addresses).select_related("profile"):
        accounts[account.address].append(account)
    plan = TdPlan(stage)
    for line, group, email in checked:
        matches = accounts.get(email.lower(), [])
        if len(matches) > 1:
            bad.append(
                {
                    "line": line,
                    "message": _(
                        "%(count)s accounts have the address %(email)s; name the TD of group "
                        "%(number)s on the group's page instead."
                    )
                    % {"count": len(matches), "email": email, "number": group.number},
                }
            )
        elif matches:
            account = matches[0]
            action = TdAction.UNCHANGED if group.td_id == account.pk else TdAction.ASSIGN
            plan.rows.append(TdRow(line, group, email, action, account))
        else:
            plan.rows.append(TdRow(line, group, email, TdAction.INVITE))
    if bad:
        bad.sort(key=lambda row: row["line"])
        raise ActionError(
            ErrorCode.BAD_ROWS,
            ngettext(
                "The file has %(count)s bad row; nothing was changed. Correct it and send the "
                "whole file again.",
                "The file has %(count)s bad rows; nothing was changed. Correct them and send the "
                "whole file again.",
                len(bad),
            )
            % {"count": len(bad)},
            bad,
        )
    if not plan.rows:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The file names no group; write one line group,email for each group."),
        )
    plan.rows.sort(key=lambda row: row.group.number)
    return plan


def preview_tds(user: Actor, stage: Stage, text: str) -> TdPlan:
    """What :func:`assign_tds` would do with ``text``; nothing is written (organizers)."""
    require_organizer(user, stage.tournament)
    return plan_tds(stage, parse_td_csv(text))


def assign_tds(user: Actor, stage: Stage, text: str) -> TdPlan:
    """Name the TDs of the stage's groups from a CSV ``group,email`` (organizers): an account
    with the address becomes the group's TD at once, any other address is invited as the
    group's TD (the e-mail goes out on commit; the group keeps its TD until the invitation
    is accepted). All rows or none: every bad row is listed and nothing changes."""
    require_organizer(user, stage.tournament)
    return _apply_tds(user, stage, parse_td_csv(text))


def assign_group_td(user: Actor, stage: Stage, number: int, email: str) -> TdPlan:
    """Name one group's TD by e-mail address, as one row of :func:`assign_tds` would."""
    require_organizer(user, stage.tournament)
    return _apply_tds(user, stage, [(1, str(number), (email or "").strip())])


def _apply_tds(user: Actor, stage: Stage, rows: list[tuple[int, str, str | None]]) -> TdPlan:
    with transaction.atomic():
        plan = plan_tds(stage, rows)
        for row in plan.rows:
            if row.action == TdAction.ASSIGN:
                row.group = assign_td(user, row.group, row.account)
            elif row.action == TdAction.INVITE:
                invite(
                    user,
                    stage.tournament,
                    email=row.email,
                    role=Invitation.Role.TD,
                    stage=stage,
                    group_number=row.group.number,
                )
    return plan


# ---------------------------------------------------------------------------
# Entries and accounts
# ---------------------------------------------------------------------------


def link_entrant(user: Actor, entrant: Entrant, player: User | None) -> Entrant:
    """Link an entry to a player's account, or unlink it with ``player=None`` (organizers)."""
    require_organizer(user, entrant.tournament)
    with transaction.atomic():
        entrant = (
            Entrant.objects.select_for_update(no_key=True, of=("self",))
            .select_related("tournament", "user")
            .get(pk=entrant.pk)
        )
        old = entrant.user.get_username() if entrant.user else ""
        entrant.user = player
        entrant.save(update_fields=["user"])
        link_people(Entrant.objects.filter(pk=entrant.pk))
        record(
            Action.ENTRANT_LINKED,
            user,
            tournament=entrant.tournament,
            entrant=entrant.code,
            old=old,
            new=player.get_username() if player else "",
        )
    return entrant


def link_entrants_by_email(user: Actor, entrants: Iterable[Entrant]) -> int:
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


def send_claim_links(user: Actor, entrants: Iterable[Entrant]) -> int:
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
                Action.ENTRANT_CLAIM_LINKS_SENT,
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
    ids = [
        entrant.pk
        for entrant in Entrant.objects.filter(email__iexact=email, user__isnull=True)
        .select_related("claim_refusal")
        .only("pk", "email", "claim_refusal")
        if not refused(entrant)
    ]
    if ids:
        nonce = secrets.token_hex(8)
        transaction.on_commit(lambda: tasks.send_claim_links.delay(ids, nonce))
    return len(ids)


def claimable_entrant(token: str) -> Entrant:
    """The entry a claim link names, if the link still matches it (for showing it)."""
    entrant_id, email = read_claim_token(token)
    entrant = (
        Entrant.objects.select_related("tournament", "user", "claim_refusal")
        .filter(pk=entrant_id)
        .first()
    )
    if entrant is None or entrant.email.lower() != email:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _(
                "This link no longer matches the entry (its e-mail address changed); ask for a "
                "new link."
            ),
        )
    if refused(entrant) and entrant.user_id is None:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _(
                "This link was refused: someone at this address said the entry is not theirs. "
                "If it is yours, ask the organizers to send a new link."
            ),
        )
    return entrant


def refuse_claim(token: str) -> Entrant:
    """The person a claim link reached says the entry is not theirs ("not me"; no account
    needed: the link is the proof of the address). No more claim links or e-mails about the
    entry go to that address until an organizer changes it; an entry claimed already is not
    refused (its owner unlinks it with the organizers). Refusing twice changes nothing."""
    entrant_id = claimable_entrant(token).pk
    with transaction.atomic():
        entrant = (
            Entrant.objects.select_for_update(no_key=True, of=("self",))
            .select_related("tournament")
            .get(pk=entrant_id)
        )
        if entrant.user_id is not None:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "This entry is linked to an account already; the organizers can unlink it "
                    "if that is wrong."
                ),
            )
        address = entrant.email.strip().lower()
        ClaimRefusal.objects.update_or_create(
            entrant=entrant, defaults={"email": address, "refused_at": timezone.now()}
        )
        record(
            Action.ENTRANT_CLAIM_REFUSED,
            None,
            tournament=entrant.tournament,
            entrant=entrant.code,
            email=address,
        )
    return entrant


def claim_entry(user: Actor, token: str) -> Entrant:
    """Link the entry named by a claim link to ``user``. Claiming it again changes nothing;
    an entry linked to another account is refused."""
    user = require_signed_in(user)
    entrant_id = claimable_entrant(token).pk
    with transaction.atomic():
        entrant = (
            Entrant.objects.select_for_update(no_key=True, of=("self",))
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
        link_people(Entrant.objects.filter(pk=entrant.pk))
        record(Action.ENTRANT_CLAIMED, user, tournament=entrant.tournament, entrant=entrant.code)
    return entrant


def join_by_claim(token: str, *, username: str, password: str, display_name: str = "") -> User:
    """Create an account with the entry's address (and the name others will see) and claim
    the entry with it, in one transaction. Returns the new user."""
    entrant = claimable_entrant(token)
    if entrant.user_id is not None:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("This entry belongs to an account already; sign in with it."),
        )
    with transaction.atomic():
        user = _new_user(username, entrant.email, password, display_name)
        claim_entry(user, token)
    return user


# ---------------------------------------------------------------------------
# API tokens
# ---------------------------------------------------------------------------


def api_token(user: User) -> Token | None:
    return Token.objects.filter(user=user).first()


def obtain_token(user: Actor) -> Token:
    """The user's API token, made on first use (after the caller checked the password)."""
    user = require_signed_in(user)
    with transaction.atomic():
        token, created = Token.objects.get_or_create(user=user)
        if created:
            record(Action.ACCOUNT_TOKEN_CREATED, user)
    return token


def regenerate_token(user: Actor) -> Token:
    """A new API token for ``user``; the old one stops working."""
    user = require_signed_in(user)
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        token = Token.objects.create(user=user)
        record(Action.ACCOUNT_TOKEN_CREATED, user)
    return token
