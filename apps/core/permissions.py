"""Who may do what — one module for HTML views and the API alike.

Roles so far: the public (reads published stages); organizers of a tournament (everything
about it; staff count as organizers of every tournament); a group's TD (enters that group's
results).
"""

from __future__ import annotations

from django.db.models import Q
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


def public_stages_filter(to_stage: str = "") -> Q:
    """Published and closed stages, as a filter on a queryset that reaches a stage through
    ``to_stage`` (``""`` for stages themselves, ``"stage__"`` for groups or seats)."""
    from apps.stages.models import Stage  # core is imported by the apps, not the other way

    return Q(**{f"{to_stage}status__in": [Stage.Status.PUBLISHED, Stage.Status.CLOSED]})


def visible_stages_filter(user, to_stage: str = "") -> Q:
    """The stages ``user`` may see (as :func:`can_view_stage` decides for one), as a filter."""
    if not getattr(user, "is_authenticated", False):
        return public_stages_filter(to_stage)
    if user.is_staff:
        return Q()
    organized = user.organized_tournaments.values("pk")
    return public_stages_filter(to_stage) | Q(**{f"{to_stage}tournament__in": organized})


def require_organizer(user, tournament) -> None:
    if not is_organizer(user, tournament):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only the organizers of %(name)s may do this.") % {"name": tournament.name},
        )
