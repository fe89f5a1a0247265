"""A game's and a group's history: audit events as lines a person reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import (
    RESULT_EVENTS,
    Action,
    result_change_events,
    withdrawals_of,
    withdrawn_entrant_code,
)
from apps.core.models import AuditEvent, ResultChange
from apps.core.people import display_name
from apps.core.results import Result
from apps.groups.models import Game, Group
from apps.groups.services import forfeit_counts

from .services import forfeit_result

RECENT = 25


@dataclass(frozen=True)
class Change:
    when: datetime
    who: str
    what: str  # "entered", "corrected", "withdrawal of CODE"
    game: str  # "White – Black", or "" for a withdrawal
    old: str
    new: str
    adjudicated: bool
    reason: str


def result_label(result: str) -> str:
    """The result's label in the active language (a string that is no result code as it is)."""
    return Result.describe(result)


def _who(event: AuditEvent) -> str:
    return display_name(event.actor) if event.actor else "—"


def _change(event: AuditEvent, game: Game | None = None, forfeits: int = 0) -> Change:
    """One change; a withdrawal shows the forfeit of ``game`` (a game it forfeited), or
    without a game, how many games it forfeited (``forfeits``)."""
    data = event.data
    if event.action == Action.ENTRANT_WITHDRAWN:
        if game is not None and game.forfeited_by_id is not None:
            old, new = result_label(""), result_label(forfeit_result(game))
        else:
            old = ""
            new = ngettext("%(count)s forfeit", "%(count)s forfeits", forfeits) % {
                "count": forfeits
            }
        return Change(
            event.created_at,
            _who(event),
            _("withdrawal of %(code)s") % {"code": withdrawn_entrant_code(event)},
            "",
            old,
            new,
            False,
            data.get("reason", ""),
        )
    shown = game
    if event.action == Action.RESULT_CORRECTED:
        what = _("corrected")
    elif data.get("import"):  # one game of a results file (apps.core.audit.result_change_events)
        what = _("imported")
    else:
        what = _("entered")
    return Change(
        event.created_at,
        _who(event),
        what,
        f"{shown.white.name} – {shown.black.name}" if shown else "",
        result_label(data.get("old", "")),
        result_label(data.get("new", "")),
        bool(data.get("adjudicated")),
        data.get("reason", ""),
    )


def game_events(game: Game) -> list[AuditEvent]:
    """Every change of the game, newest first: its own events, the results imports that set
    its result (as the events they stand for) and the withdrawal that turned it into a
    forfeit (``game.forfeited_by``; three queries, with White and Black)."""
    events = list(AuditEvent.objects.filter(game_id=game.pk).select_related("actor"))
    events += result_change_events(ResultChange.objects.filter(game_id=game.pk))
    if game.forfeited_by_id is not None:
        withdrawn = game.white if game.forfeited_by_id == game.white_id else game.black
        events += (
            withdrawals_of(withdrawn.code).filter(group_id=game.group_id).select_related("actor")
        )
    events.sort(key=lambda e: (e.created_at, e.pk), reverse=True)
    return events


def game_history(game: Game) -> list[Change]:
    return [_change(e, game) for e in game_events(game)]


def recent_changes(group: Group) -> list[Change]:
    """The group's latest :data:`RECENT` result changes, newest first: its events and the
    results its games got from imports."""
    events = list(
        AuditEvent.objects.filter(group_id=group.pk, action__in=RESULT_EVENTS)
        .select_related("actor")
        .order_by("-created_at", "-id")[:RECENT]
    )
    imported = ResultChange.objects.filter(
        game_id__in=Game.objects.filter(group=group).values("pk")
    ).order_by("-event__created_at", "-event_id", "game_id")
    events += result_change_events(imported, RECENT)
    events.sort(key=lambda e: (e.created_at, e.pk), reverse=True)
    del events[RECENT:]
    games = Game.objects.select_related("white", "black").in_bulk({e.game_id for e in events})
    withdrawals = any(e.action == Action.ENTRANT_WITHDRAWN for e in events)
    forfeits = forfeit_counts([group.pk]) if withdrawals else {}
    return [
        _change(e, games.get(e.game_id), forfeits.get((group.pk, withdrawn_entrant_code(e)), 0))
        for e in events
    ]
