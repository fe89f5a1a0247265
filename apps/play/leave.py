"""Leave: a player's whole calendar days (UTC) during which no clock runs in their games
played here (docs/clock.md §5, docs/play-clock-ops.md).

:func:`take_leave` and :func:`cancel_leave` are the two actions; :func:`leave_overview` is what
"My games" and ``GET /api/me/leave/`` show. The rule is the pure clock's
(:func:`apps.clock.check_leave`): announced before its first day, no overlap with a leave
taken, no calendar year over its allowance; unused days do not carry over. Each player has
the stage's ``leave_days`` a calendar year, and its ``special_leave_days`` as special leave,
counted apart (a leave marked special uses those).

A leave belongs to the player, not to a game: it stops the clocks of all their games here at
once. So its allowance is the smallest of the stages they play here (it has to fit each
event's rules); a player with no game here has the rules' default (45 days, no special).

Both actions recompute the sweep's instants of every open game of the player (the clocks of
both sides stop during the leave, whoever takes it) in their transaction, write one audit
event, and tell the opponents by e-mail once the change commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Min, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clock import Leave as LeavePeriod
from apps.clock import LeaveAllowance, LeaveProblem, LeaveRefusal, check_leave
from apps.core.audit import Action, record
from apps.core.bulk import update_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_signed_in
from apps.groups.models import Seat
from apps.stages.models import Stage

from .clocking import refresh_deadlines
from .models import Leave, PlayedGame

# The rules' allowance when the player has no stage here to take it from.
DEFAULT_ALLOWANCE = LeaveAllowance()


def allowance_of(user_id: int) -> LeaveAllowance:
    """The leave a year of the player: the smallest ``leave_days`` and ``special_leave_days``
    among the stages in play here they sit in (one query)."""
    return stage_allowance(user_id) or DEFAULT_ALLOWANCE


def stage_allowance(user_id: int) -> LeaveAllowance | None:
    """:func:`allowance_of` from the player's stages here; None when they have none."""
    found = Seat.objects.filter(
        entrant__user_id=user_id,
        stage__play_on_server=True,
        stage__status=Stage.Status.PUBLISHED,
    ).aggregate(days=Min("stage__leave_days"), special=Min("stage__special_leave_days"))
    if found["days"] is None:
        return None
    return LeaveAllowance(found["days"], found["special"] or 0)


def _periods(leaves: Sequence[Leave]) -> list[LeavePeriod]:
    return [LeavePeriod(leave.starts_on, leave.ends_on) for leave in leaves]


def leave_refusals(
    requested: LeavePeriod,
    *,
    special: bool,
    today: date,
    taken: Sequence[Leave],
    allowance: LeaveAllowance,
) -> list[LeaveRefusal]:
    """Every reason to refuse ``requested``: the pure rule on all the leave taken (announced
    in advance, no overlap), and the year's days on the leave of its own kind, regular against
    ``days_per_year`` and special against ``special_days``."""
    every = check_leave(requested, today=today, taken=_periods(taken), allowance=allowance)
    kind = check_leave(
        requested,
        today=today,
        taken=_periods([leave for leave in taken if leave.special == special]),
        allowance=LeaveAllowance(allowance.special_days if special else allowance.days_per_year),
    )
    return [r for r in every if r.problem is not LeaveProblem.OVER_ALLOWANCE] + [
        r for r in kind if r.problem is LeaveProblem.OVER_ALLOWANCE
    ]


def _taken(user_id: int) -> list[Leave]:
    return list(Leave.objects.filter(user_id=user_id, cancelled_at__isnull=True))


def _lock_player(user_id: int) -> None:
    """One leave action at a time per player: two requests at once could each fit the year's
    allowance alone. The account's row is the lock (no other action locks it)."""
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user_id).first()


def take_leave(
    actor: Actor,
    starts_on: date,
    ends_on: date,
    *,
    special: bool = False,
    now: datetime | None = None,
) -> Leave:
    """Announce a leave from ``starts_on`` to ``ends_on`` (both included, UTC days) for the
    signed-in player; ``special``: taken from the event's special leave. ``now``: the
    moment of the request (tests pass their own clock)."""
    user = require_signed_in(actor)
    now = now or timezone.now()
    try:
        requested = LeavePeriod(starts_on, ends_on)
    except ValueError:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("A leave cannot end (%(last)s) before it starts (%(first)s).")
            % {"first": starts_on, "last": ends_on},
        ) from None
    with transaction.atomic():
        _lock_player(user.pk)
        refusals = leave_refusals(
            requested,
            special=special,
            today=now.date(),
            taken=_taken(user.pk),
            allowance=allowance_of(user.pk),
        )
        if refusals:
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                " ".join(r.message for r in refusals),
                [{"problem": r.problem.value, "message": r.message} for r in refusals],
            )
        leave = Leave.objects.create(
            user=user, starts_on=starts_on, ends_on=ends_on, special=special
        )
        games = refresh_player_games(user.pk, now)
        record(
            Action.PLAY_LEAVE_TAKEN,
            user,
            leave=leave.pk,
            first=starts_on.isoformat(),
            last=ends_on.isoformat(),
            special=special,
            games=games,
        )
        transaction.on_commit(lambda: _tell_opponents(leave.pk, cancelled=False))
    return leave


def cancel_leave(actor: Actor, leave_id: int, *, now: datetime | None = None) -> Leave:
    """Cancel one of the signed-in player's leaves before it begins (a leave begun or over
    stands: the clocks stopped already)."""
    user = require_signed_in(actor)
    now = now or timezone.now()
    with transaction.atomic():
        _lock_player(user.pk)
        leave = Leave.objects.filter(pk=leave_id, user=user, cancelled_at__isnull=True).first()
        if leave is None:
            raise ActionError(ErrorCode.NOT_FOUND, _("You have no such leave."))
        if leave.starts_on <= now.date():
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("The leave began on %(first)s; only a leave not yet begun can be cancelled.")
                % {"first": leave.starts_on},
            )
        leave.cancelled_at = now
        leave.save(update_fields=["cancelled_at"])
        games = refresh_player_games(user.pk, now)
        record(
            Action.PLAY_LEAVE_CANCELLED,
            user,
            leave=leave.pk,
            first=leave.starts_on.isoformat(),
            last=leave.ends_on.isoformat(),
            games=games,
        )
        transaction.on_commit(lambda: _tell_opponents(leave.pk, cancelled=True))
    return leave


def _tell_opponents(leave_id: int, *, cancelled: bool) -> None:
    from . import tasks  # the tasks call notices, which read this app's models

    tasks.leave_changed.delay(leave_id, cancelled)


def player_open_games(user_id: int):
    """The open games here of the player's entries (through their seats: games are indexed
    by group, not by player)."""
    groups = Seat.objects.filter(entrant__user_id=user_id).values("group_id")
    mine = Q(game__white__user_id=user_id) | Q(game__black__user_id=user_id)
    return PlayedGame.objects.filter(
        mine, game__group_id__in=groups, finished_at__isnull=True
    ).exclude(game__result__gt="")


def refresh_player_games(user_id: int, now: datetime) -> int:
    """Recompute the sweep's instants of every open game of the player, locked first (the lock
    order of play: played games before anything of their group), written in one statement.
    Returns how many games."""
    played = list(
        player_open_games(user_id)
        .select_for_update(no_key=True, of=("self",))
        .select_related("stage", "game__white", "game__black")
        .order_by("pk")
    )
    for one in played:
        refresh_deadlines(one, now, save=False)
    update_rows(
        PlayedGame,
        ("loses_at", "next_reminder_at"),
        ((p.pk, p.loses_at, p.next_reminder_at) for p in played),
    )
    return len(played)


# ---------------------------------------------------------------------------
# What "My games" and the API show
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaveYear:
    """A calendar year's leave of the player: the allowance, the days taken (planned ones
    included) and left, regular and special apart."""

    year: int
    days: int
    used: int
    special_days: int
    special_used: int

    @property
    def left(self) -> int:
        return max(0, self.days - self.used)

    @property
    def special_left(self) -> int:
        return max(0, self.special_days - self.special_used)


@dataclass(frozen=True)
class LeaveOverview:
    allowance: LeaveAllowance
    years: list[LeaveYear]
    leaves: list[Leave]  # not cancelled, the latest first
    today: date
    plays_here: bool  # the player sits in a stage in play on this server

    def cancellable(self, leave: Leave) -> bool:
        return leave.starts_on > self.today

    @property
    def upcoming(self) -> list[Leave]:
        return [leave for leave in self.leaves if leave.ends_on >= self.today]


def leave_overview(user_id: int, today: date | None = None) -> LeaveOverview:
    """The player's allowance, this year's and next year's days used and left, and their
    leave (three queries)."""
    today = today or timezone.now().date()
    from_stages = stage_allowance(user_id)
    allowance = from_stages or DEFAULT_ALLOWANCE
    leaves = sorted(_taken(user_id), key=lambda leave: leave.starts_on, reverse=True)
    years = []
    for year in (today.year, today.year + 1):
        used = {True: 0, False: 0}
        for leave in leaves:
            used[leave.special] += LeavePeriod(leave.starts_on, leave.ends_on).days_in_year(year)
        years.append(
            LeaveYear(
                year, allowance.days_per_year, used[False], allowance.special_days, used[True]
            )
        )
    return LeaveOverview(allowance, years, leaves, today, from_stages is not None)
