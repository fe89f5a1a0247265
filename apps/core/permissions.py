"""Who may do what — one module for HTML views and the API alike.

Roles: the public (reads published stages); organizers of a tournament (everything about it;
staff count as organizers of every tournament; several may share one); a group's TD (enters
that group's results); players (signed-in users linked to entrants, see "my games").

Contact e-mail addresses are private: an entrant's address is shown only to the entrant's own
opponents, the group's TD and the organizers (:func:`contacts_for`); a TD's address only to
the group's players, the TD and the organizers (:func:`can_see_td_contact`).
"""

from __future__ import annotations

from dataclasses import dataclass

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


def signed_in(user) -> bool:
    return bool(getattr(user, "is_authenticated", False))


def require_signed_in(user) -> None:
    if not signed_in(user):
        raise ActionError(ErrorCode.PERMISSION_DENIED, _("Sign in first."))


def own_entrant_ids(user, group) -> set[int]:
    """The entrants of ``group`` whose account is ``user`` (one query; empty for the public)."""
    if not signed_in(user):
        return set()
    from apps.groups.models import Seat  # core is imported by the apps, not the other way

    return set(
        Seat.objects.filter(group=group, entrant__user=user).values_list("entrant_id", flat=True)
    )


def is_group_player(user, group) -> bool:
    """Whether ``user`` plays in ``group`` (one of its entrants is linked to the account)."""
    return bool(own_entrant_ids(user, group))


@dataclass(frozen=True)
class Contacts:
    """Whose e-mail addresses one user may see in one group."""

    everyone: bool = False
    entrant_ids: frozenset[int] = frozenset()

    def shows(self, entrant_id: int) -> bool:
        return self.everyone or entrant_id in self.entrant_ids

    def __contains__(self, entrant_id: int) -> bool:  # ``{% if pk in contacts %}``
        return self.shows(entrant_id)

    def __bool__(self) -> bool:
        return self.everyone or bool(self.entrant_ids)


NO_CONTACTS = Contacts()


def contacts_for(user, group) -> Contacts:
    """The group's TD and the organizers see every entrant's address; a player sees their own
    and their opponents'; everyone else none (at most three queries)."""
    if not signed_in(user):
        return NO_CONTACTS
    if can_enter_results(user, group):
        return Contacts(everyone=True)
    mine = own_entrant_ids(user, group)
    if not mine:
        return NO_CONTACTS
    from apps.results.models import Game

    pairs = Game.objects.filter(group=group).filter(Q(white_id__in=mine) | Q(black_id__in=mine))
    seen = set(mine)
    for white, black in pairs.values_list("white_id", "black_id"):
        seen.update((white, black))
    return Contacts(entrant_ids=frozenset(seen))


def can_see_td_contact(user, group) -> bool:
    """The TD's address is for the group's players, the TD and the organizers."""
    return can_enter_results(user, group) or is_group_player(user, group)
