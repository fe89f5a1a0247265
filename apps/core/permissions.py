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

from django.utils.translation import gettext as _

from .errors import ActionError, ErrorCode


def is_organizer(user, tournament) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff:
        return True
    return tournament.organizers.filter(pk=user.pk).exists()


def can_view_stage(user, stage) -> bool:
    """Published (and closed) stages are public; others only for their organizers."""
    return stage.is_public or is_organizer(user, stage.tournament)


def is_group_td(user, group) -> bool:
    return getattr(user, "is_authenticated", False) and group.td_id == user.pk


def can_enter_results(user, group) -> bool:
    """The group's TD and the tournament's organizers enter results."""
    return is_group_td(user, group) or is_organizer(user, group.stage.tournament)


def require_result_entry(user, group) -> None:
    if not can_enter_results(user, group):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the TD of group %(number)s and the organizers may enter its results.")
            % {"number": group.number},
        )


def require_organizer(user, tournament) -> None:
    if not is_organizer(user, tournament):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the organizers of %(name)s may do this.") % {"name": tournament.name},
        )


def signed_in(user) -> bool:
    return bool(getattr(user, "is_authenticated", False))


def require_signed_in(user) -> None:
    if not signed_in(user):
        raise ActionError(ErrorCode.PERMISSION_DENIED, _("Sign in first."))
