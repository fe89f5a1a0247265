"""Closing groups and stages once play is over (or sending the last games to adjudication).

A group closes when every one of its games has a result (an adjudicated result counts); a
stage closes when all its groups are closed. Only a closed stage's qualifiers can be
confirmed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer, require_result_entry
from apps.groups.models import Game, Group
from apps.stages.models import Stage
from apps.stages.services import locked, move

from .services import locked_group

# How many open games a refusal lists by name before it just counts them.
LISTED = 10


@dataclass(frozen=True)
class GroupProgress:
    """How far a group's play has come."""

    group: Group
    games: int
    open_games: int

    @property
    def complete(self) -> bool:
        return self.open_games == 0


def group_progress(stage: Stage) -> list[GroupProgress]:
    """Every group of the stage with its count of games and of games without a result."""
    groups = stage.groups.order_by("number").annotate(
        n_games=Count("games"), n_open=Count("games", filter=Q(games__result=""))
    )
    return [GroupProgress(g, g.n_games, g.n_open) for g in groups]


@dataclass(frozen=True)
class PlaySummary:
    """Where a stage's play stands, for the organizer's dashboard."""

    groups: int
    closed: int
    complete: int  # every game has a result (closed or not)
    open_games: int
    unfinished: list[GroupProgress]


def play_summary(stage: Stage) -> PlaySummary:
    progress = group_progress(stage)
    unfinished = [p for p in progress if not p.complete]
    return PlaySummary(
        groups=len(progress),
        closed=sum(1 for p in progress if p.group.is_closed),
        complete=len(progress) - len(unfinished),
        open_games=sum(p.open_games for p in unfinished),
        unfinished=unfinished,
    )


def open_games(group: Group) -> list[Game]:
    """The group's games still without a result, in number order."""
    return list(
        Game.objects.filter(group=group, result="")
        .select_related("white", "black")
        .order_by("number")
    )


def _listing(items: list[str]) -> str:
    """The first LISTED items for a refusal, then how many more."""
    listed = ", ".join(items[:LISTED])
    if len(items) > LISTED:
        listed = _("%(listed)s and %(count)s more") % {
            "listed": listed,
            "count": len(items) - LISTED,
        }
    return listed


def _in_play(stage: Stage, doing: str) -> None:
    """Refuse unless the stage is in play; ``doing`` names the action (translated)."""
    if stage.status != Stage.Status.PUBLISHED:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Cannot %(action)s: the stage is %(status)s, not in play.")
            % {"action": doing, "status": stage.get_status_display().lower()},
        )


def _locked_group(group: Group) -> Group:
    return locked_group(group.pk)


def close_group(user: Actor, group: Group) -> Group:
    """The group's TD (or an organizer) closes it: every game must have a result."""
    with transaction.atomic():
        group = _locked_group(group)
        require_result_entry(user, group)
        _in_play(group.stage, _("close group %(number)s") % {"number": group.number})
        if group.is_closed:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("Group %(number)s is closed already.") % {"number": group.number},
            )
        missing = open_games(group)
        if missing:
            listed = _listing([f"{g.number} ({g.white.name} – {g.black.name})" for g in missing])
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                ngettext(
                    "Group %(number)s still has %(count)s game without a result: %(games)s. "
                    "Enter it (adjudicated results count) before closing.",
                    "Group %(number)s still has %(count)s games without a result: %(games)s. "
                    "Enter them (adjudicated results count) before closing.",
                    len(missing),
                )
                % {"number": group.number, "count": len(missing), "games": listed},
                [{"game": g.pk, "number": g.number} for g in missing],
            )
        group.closed_at = timezone.now()
        group.closed_by = user if user.is_authenticated else None
        group.save(update_fields=["closed_at", "closed_by"])
        record(Action.GROUP_CLOSED, user, stage=group.stage, group=group)
    return group


def reopen_group(user: Actor, group: Group, reason: str) -> Group:
    """An organizer reopens a closed group (e.g. to correct a result) while the stage is in play."""
    require_organizer(user, group.stage.tournament)
    reason = reason.strip()
    if not reason:
        raise ActionError(ErrorCode.INVALID_INPUT, _("Give a reason for reopening the group."))
    with transaction.atomic():
        group = _locked_group(group)
        _in_play(group.stage, _("reopen group %(number)s") % {"number": group.number})
        if not group.is_closed:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("Group %(number)s is not closed.") % {"number": group.number},
            )
        group.closed_at, group.closed_by = None, None
        group.save(update_fields=["closed_at", "closed_by"])
        record(Action.GROUP_REOPENED, user, stage=group.stage, group=group, reason=reason)
    return group


def send_to_adjudication(user: Actor, stage: Stage) -> int:
    """Send every game still without a result to adjudication; returns how many.

    The TDs then enter the adjudicator's decisions (marked adjudicated); the groups close
    once those are in.
    """
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = _locked_stage(stage.pk)
        return _request_adjudication(user, stage, automatic=False)


def _locked_stage(pk: int) -> Stage:
    return locked(Stage(pk=pk))


def _request_adjudication(actor: Actor | None, stage: Stage, *, automatic: bool) -> int:
    """What the organizer's button and the end of play both do, on a stage locked by the
    caller's transaction: ``actor`` None (and ``automatic``) when the system does it."""
    _in_play(stage, _("send games to adjudication"))
    count = Game.objects.filter(group__stage=stage, result="").count()
    if not count:
        raise ActionError(ErrorCode.INVALID_INPUT, _("Every game has a result already."))
    stage.adjudication_requested_at = timezone.now()
    stage.save(update_fields=["adjudication_requested_at"])
    record(Action.STAGE_SENT_TO_ADJUDICATION, actor, stage=stage, games=count, automatic=automatic)
    return count


def _due(stage: Stage, today: date) -> bool:
    return (
        stage.status == Stage.Status.PUBLISHED
        and stage.adjudication_requested_at is None
        and stage.play_ends_on is not None
        and stage.play_ends_on < today
    )


def adjudicate_due_stages(today: date | None = None) -> list[int]:
    """The end of play sends the open games to adjudication by itself: every stage in play
    whose ``play_ends_on`` is before ``today`` (default: the local date) and not sent yet is
    sent, as the system. Returns the stages sent now. Run again (or at once elsewhere), it
    sends nothing more: each stage is checked again under its row lock. A stage whose games
    all have results is left alone (its organizer closes it)."""
    today = today or timezone.localdate()
    candidates = list(
        Stage.objects.filter(
            status=Stage.Status.PUBLISHED,
            adjudication_requested_at__isnull=True,
            play_ends_on__lt=today,
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    sent = []
    for pk in candidates:
        try:
            with transaction.atomic():
                stage = _locked_stage(pk)
                if not _due(stage, today):
                    continue
                _request_adjudication(None, stage, automatic=True)
        except ActionError:
            continue  # every game has a result: nothing to adjudicate
        sent.append(pk)
    return sent


@dataclass(frozen=True)
class PlayDeadline:
    """When a stage's play ends, seen from ``today``: for the TD's and the player's pages."""

    ends_on: date
    days_left: int  # negative once play has ended

    @property
    def ended(self) -> bool:
        return self.days_left < 0

    def __str__(self) -> str:
        when = date_format(self.ends_on, "DATE_FORMAT")
        if self.ended:
            return _("Play ended on %(date)s") % {"date": when}
        return ngettext(
            "Play ends on %(date)s (%(count)s day left)",
            "Play ends on %(date)s (%(count)s days left)",
            self.days_left,
        ) % {"date": when, "count": self.days_left}


def play_deadline(stage: Stage, today: date | None = None) -> PlayDeadline | None:
    """The stage's end of play (None without a ``play_ends_on``)."""
    if stage.play_ends_on is None:
        return None
    today = today or timezone.localdate()
    return PlayDeadline(stage.play_ends_on, (stage.play_ends_on - today).days)


def close_stage(user: Actor, stage: Stage) -> Stage:
    """Close the stage: complete groups still open are closed with it; a group with games
    still open stops the whole action (nothing changes) and is named in the refusal."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = _locked_stage(stage.pk)
        _in_play(stage, _("close the stage"))
        progress = group_progress(stage)
        unfinished = [p for p in progress if not p.complete]
        if unfinished:
            listed = _listing(
                [
                    _("%(number)s (%(count)s open)")
                    % {"number": p.group.number, "count": p.open_games}
                    for p in unfinished
                ]
            )
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                ngettext(
                    "%(count)s group still has games without a result: %(groups)s. Wait for it "
                    "or send the remaining games to adjudication.",
                    "%(count)s groups still have games without a result: %(groups)s. Wait for "
                    "them or send the remaining games to adjudication.",
                    len(unfinished),
                )
                % {"count": len(unfinished), "groups": listed},
                [{"group": p.group.number, "open_games": p.open_games} for p in unfinished],
            )
        now = timezone.now()
        to_close = [p.group.pk for p in progress if not p.group.is_closed]
        Group.objects.filter(pk__in=to_close).update(
            closed_at=now, closed_by=user if user.is_authenticated else None
        )
        move(stage, Stage.Status.CLOSED, _("close the stage"))
        stage.closed_at = now
        stage.save(update_fields=["status", "closed_at"])
        record(Action.STAGE_CLOSED, user, stage=stage, groups_closed_now=len(to_close))
    return stage
