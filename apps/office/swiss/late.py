"""Late entrants of a Swiss stage (FIDE C.04.2: players may join a Swiss after it started).

:func:`add_late_entrant` — one action — registers a player (a new entrant of the tournament,
or one of its entrants who is not in this stage) in a published Swiss stage whose group is
open and whose last round is not paired yet, and gives them the next seat (the group's size
+ 1: the start list keeps its numbers). What follows needs nothing more:

* the rounds paired before they joined have no game and no bye for them, which every reader
  takes as "not paired, 0 points" (the TRF's ``Z``; FIDE: players known in advance not to
  play a round are not paired in it and score 0): the pairing (:mod:`.pairing`), the
  standings, the crosstable and the start list ("–"), "My games" and the TRF export;
* from the next round on they are paired like everyone else, by pairing number: FIDE's
  initial order (rating, then name, then code) of all the seats now
  (:func:`apps.silli.swiss_system.pairing_order`), so a strong late entrant is paired as
  a top seed although seated last. The TRF export numbers the players the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer
from apps.entrants.fields import FIELD_WORDS
from apps.entrants.models import Entrant, StageEntry
from apps.entrants.services import checked_entrant_fields, create_entrant, new_code
from apps.groups.models import Group, Seat
from apps.silli.swiss_system import pairing_order
from apps.stages.models import Stage
from apps.stages.services import locked
from apps.standings.freshness import schedule_recomputes

from .state import SwissState, require_open_group, swiss_state

# The reason kept on a late entrant's stage entry (data, not shown translated).
LATE_ENTRY = "late entry"


def late_entrant_codes(stage: Stage) -> list[str]:
    """The codes of the stage's late entrants (none outside a Swiss stage)."""
    entries = StageEntry.objects.filter(
        stage=stage, source=StageEntry.Source.REGISTERED, reason=LATE_ENTRY
    )
    return list(entries.values_list("entrant__code", flat=True))


@dataclass(frozen=True)
class LateEntry:
    """What :func:`add_late_entrant` did."""

    entry: StageEntry
    seat: Seat
    first_round: int
    """The first round they can be paired in (the rounds before it: not paired, 0 points)."""
    pairing_number: int
    """Their pairing number (TPN) as the next round is paired."""
    existing: bool
    """An entrant of the tournament already (an earlier stage's), not a new one."""

    def as_dict(self) -> dict:
        entrant = self.entry.entrant
        return {
            "code": entrant.code,
            "name": entrant.name,
            "nation": entrant.nation,
            "rating": entrant.rating,
            "seat": self.seat.number,
            "pairing_number": self.pairing_number,
            "first_round": self.first_round,
            "existing": self.existing,
        }


def _check_open(state: SwissState) -> Group:
    """The stage's group, if a late entrant may join now; an ActionError says why not."""
    group = require_open_group(
        state,
        _(
            "A late entrant joins a Swiss stage once it is drawn and published and until "
            "its last round is paired; this stage is %(status)s."
        ),
        _("The group is closed; reopen it before adding a late entrant."),
    )
    if state.complete:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _(
                "All %(rounds)s rounds are paired: a late entrant would play none of them, so "
                "none can join now."
            )
            % {"rounds": state.rounds},
        )
    return group


def _same_details(entrant: Entrant, checked: dict) -> list[dict[str, str]]:
    """Where the details given differ from those the entrant is registered with (the name
    and nation always; the rating, person and e-mail when given): the API's details."""
    differ = []
    for name in ("name", "nation", "rating", "person", "email"):
        given, registered = checked.get(name), getattr(entrant, name)
        if name in ("rating", "person", "email") and given in (None, ""):
            continue
        same = (
            str(given).casefold() == str(registered).casefold()
            if name in ("name", "email")
            else given == registered
        )
        if not same:
            differ.append(
                {
                    "field": name,
                    "message": _("%(field)s: registered as %(value)s")
                    % {"field": FIELD_WORDS[name], "value": registered or "–"},
                    "code": "mismatch",
                }
            )
    return differ


def _existing(stage: Stage, code: str, checked: dict) -> Entrant | None:
    """The tournament's entrant with this code, if it may join the stage (None: no such
    entrant); refused if they are in the stage already or the details name someone else."""
    entrant = (
        Entrant.objects.select_for_update(no_key=True)
        .filter(tournament_id=stage.tournament_id, code=code)
        .first()
    )
    if entrant is None:
        return None
    if StageEntry.objects.filter(stage=stage, entrant=entrant).exists():
        raise ActionError(
            ErrorCode.CONFLICT,
            _("%(name)s (%(code)s) is already an entrant of this stage.")
            % {"name": entrant.name, "code": code},
            [{"field": "code", "message": _("already in this stage"), "code": "in_stage"}],
        )
    differ = _same_details(entrant, checked)
    if differ:
        raise ActionError(
            ErrorCode.CONFLICT,
            _(
                "The code %(code)s belongs to %(name)s (%(nation)s), an entrant of this "
                "tournament, whose details differ from those given (%(fields)s). To enter "
                "them give their details as registered; for another player choose another "
                "code or leave it empty."
            )
            % {
                "code": code,
                "name": entrant.name,
                "nation": entrant.nation,
                "fields": ", ".join(str(FIELD_WORDS[d["field"]]) for d in differ),
            },
            differ,
        )
    return entrant


def add_late_entrant(
    user: Actor,
    stage: Stage,
    *,
    code: str = "",
    name: str,
    nation: str,
    rating: int | str | None = None,
    person: str = "",
    email: str = "",
) -> LateEntry:
    """Register a late entrant in a Swiss stage and seat them at the end (organizers).

    A ``code`` of an entrant of the tournament who is not in this stage enters that entrant
    (the details given must be theirs: name and nation, and the rating, person and e-mail
    if given); another code, or none (the next free E000001 …), registers a new entrant.
    Refused (nothing changes) for a stage that is not Swiss, not published, whose group is
    closed or whose rounds are all paired, for an entrant already in the stage and for
    details the entrant rules refuse (every bad field listed)."""
    require_organizer(user, stage.tournament)
    checked = checked_entrant_fields(
        code=code, name=name, nation=nation, rating=rating, person=person, email=email
    )
    with transaction.atomic():
        stage = locked(stage)
        state = swiss_state(stage, lock=True)  # the stage, then its group (core.locking)
        group = _check_open(state)
        given = str(checked.get("code") or "")
        entrant = _existing(stage, given, checked) if given else None
        existing = entrant is not None
        if entrant is None:
            entrant = create_entrant(
                stage.tournament_id, given or new_code(stage.tournament_id), checked
            )
        entry = StageEntry.objects.create(
            stage=stage, entrant=entrant, source=StageEntry.Source.REGISTERED, reason=LATE_ENTRY
        )
        group.size += 1
        group.save(update_fields=["size"])
        seat = Seat.objects.create(stage=stage, group=group, number=group.size, entrant=entrant)
        order = pairing_order(
            {
                s.number: s.entrant
                for s in Seat.objects.filter(group=group).select_related("entrant")
            }
        )
        late = LateEntry(entry, seat, state.paired + 1, order.index(seat.number) + 1, existing)
        record(
            Action.SWISS_LATE_ENTRANT_ADDED,
            user,
            stage=stage,
            group=group,
            entrant=entrant.code,
            name=entrant.name,
            nation=entrant.nation,
            rating=entrant.rating,
            seat=seat.number,
            pairing_number=late.pairing_number,
            first_round=late.first_round,
            existing=existing,
            generated_code=not given,
        )
        # The standings get the new row (no points, nothing played).
        schedule_recomputes([group.pk])
    return late
