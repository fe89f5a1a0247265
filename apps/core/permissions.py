"""Who may do what: the roles, for HTML views and the API alike.

Roles: the public (reads published stages); organizers of a tournament (everything about it;
staff count as organizers of every tournament; several may share one); a group's TD (enters
that group's results); players (signed-in users linked to entrants, see "my games").

This module knows no domain model: it reads the attributes of the objects it is given
(``tournament.organizers``, ``stage.is_public``, ``group.td_id``). The rules that must query
a domain table live on the floor of that table and use these roles:
``apps.stages.permissions`` (which stages a user may see, as a queryset filter) and
``apps.groups.permissions`` (whose contact addresses a user may see in a group).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias, TypeGuard

from django.utils.translation import gettext as _

from .errors import ActionError, ErrorCode

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User
    from typing_extensions import TypeIs

# Who does something: a request's user, signed in (an account) or not (``AnonymousUser``), as
# Django and DRF give it. The actions take it as ``user`` and check it with the roles below;
# those a job or the beat also runs take ``Actor | None`` (None: the system). The roles say
# to the type checker that a user who has one is an account, and the ``require_`` functions
# return the account.
Actor: TypeAlias = "User | AnonymousUser"


def is_organizer(user: Actor | None, tournament) -> TypeGuard[User]:
    if not signed_in(user):
        return False
    if user.is_staff:
        return True
    return tournament.organizers.filter(pk=user.pk).exists()


def can_view_stage(user: Actor | None, stage) -> bool:
    """Published (and closed) stages are public; others only for their organizers."""
    return stage.is_public or is_organizer(user, stage.tournament)


def is_group_td(user: Actor | None, group) -> TypeGuard[User]:
    return signed_in(user) and group.td_id == user.pk


def can_enter_results(user: Actor | None, group) -> TypeGuard[User]:
    """The group's TD and the tournament's organizers enter results."""
    return is_group_td(user, group) or is_organizer(user, group.stage.tournament)


def require_result_entry(user: Actor | None, group) -> User:
    if not can_enter_results(user, group):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the TD of group %(number)s and the organizers may enter its results.")
            % {"number": group.number},
        )
    return user


def require_organizer(user: Actor | None, tournament) -> User:
    if not is_organizer(user, tournament):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the organizers of %(name)s may do this.") % {"name": tournament.name},
        )
    return user


def signed_in(user: Actor | None) -> TypeIs[User]:
    return bool(getattr(user, "is_authenticated", False))


def require_signed_in(user: Actor | None) -> User:
    if not signed_in(user):
        raise ActionError(ErrorCode.PERMISSION_DENIED, _("Sign in first."))
    return user
