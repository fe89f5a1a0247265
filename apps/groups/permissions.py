"""Contact e-mail addresses are private: an entrant's address is shown only to the entrant's
own opponents, the group's TD and the organizers (:func:`contacts_for`); a TD's address only to
the group's players, the TD and the organizers (:func:`can_see_td_contact`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from apps.core.permissions import Actor, can_enter_results, signed_in

from .models import Game, Seat


def own_entrant_ids(user: Actor, group) -> set[int]:
    """The entrants of ``group`` whose account is ``user`` (one query; empty for the public)."""
    if not signed_in(user):
        return set()
    return set(
        Seat.objects.filter(group=group, entrant__user=user).values_list("entrant_id", flat=True)
    )


def is_group_player(user: Actor, group) -> bool:
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


def contacts_for(user: Actor, group) -> Contacts:
    """The group's TD and the organizers see every entrant's address; a player sees their own
    and their opponents'; everyone else none (at most three queries)."""
    if not signed_in(user):
        return NO_CONTACTS
    if can_enter_results(user, group):
        return Contacts(everyone=True)
    mine = own_entrant_ids(user, group)
    if not mine:
        return NO_CONTACTS
    pairs = Game.objects.filter(group=group).filter(Q(white_id__in=mine) | Q(black_id__in=mine))
    seen = set(mine)
    for white, black in pairs.values_list("white_id", "black_id"):
        seen.update((white, black))
    return Contacts(entrant_ids=frozenset(seen))


def can_see_td_contact(user: Actor, group) -> bool:
    """The TD's address is for the group's players, the TD and the organizers."""
    return can_enter_results(user, group) or is_group_player(user, group)
