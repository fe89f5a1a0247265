"""A Swiss round's start and deadline (:class:`~apps.groups.models.SwissRound`): written when a
round starts, read by the pages that show "Round 3 ends on … (4 days left)" and, once the
deadline passed, what was done with the round's unfinished games.

The office writes the rounds (publication, pairing: apps/office/swiss/pairing.py) and marks their
deadlines (apps/office/swiss/deadlines.py); the results, accounts and office pages read them
here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.stages.models import Stage

from .models import Game, Group, SwissRound


def start_round(
    group: Group,
    number: int,
    days: int | None,
    now: datetime | None = None,
    virtual_points: dict[int, int] | None = None,
):
    """Record that round ``number`` of the Swiss group starts now (inside the caller's
    transaction): due ``days`` days later, or never without ``days``, paired with
    ``virtual_points`` (seat → half-points, :attr:`SwissRound.virtual_points`). A round
    already recorded is left as it was."""
    now = now or timezone.now()
    due = now + timedelta(days=days) if days else None
    applied = None if virtual_points is None else {str(s): v for s, v in virtual_points.items()}
    found, _created = SwissRound.objects.get_or_create(
        group=group,
        number=number,
        defaults={"started_at": now, "due_at": due, "virtual_points": applied},
    )
    return found


def applied_virtual_points(group: Group) -> dict[int, dict[int, int]]:
    """The virtual points each round was paired with: round → seat → half-points, for the
    rounds that kept them (:attr:`SwissRound.virtual_points`)."""
    rows = SwissRound.objects.filter(group=group, virtual_points__isnull=False)
    return {
        number: {int(seat): int(value) for seat, value in (points or {}).items()}
        for number, points in rows.values_list("number", "virtual_points")
    }


def current_round(group: Group) -> SwissRound | None:
    """The group's last round started (None before publication, or for a stage published
    before rounds had deadlines)."""
    return SwissRound.objects.filter(group=group).order_by("-number").first()


@dataclass(frozen=True)
class RoundDeadline:
    """A Swiss round's deadline, seen from ``now``: for the stage's, the group's, the TD's and
    the player's pages."""

    round: int
    due_at: datetime
    now: datetime
    passed_at: datetime | None
    at_deadline: str
    open_at_deadline: int
    last_round: bool

    @property
    def days_left(self) -> int:
        """Whole days from today to the deadline's day (0: it falls today)."""
        return (timezone.localdate(self.due_at) - timezone.localdate(self.now)).days

    @property
    def ended(self) -> bool:
        return self.passed_at is not None or self.due_at <= self.now

    @property
    def adjudicating(self) -> bool:
        """The unfinished games went to adjudication at the deadline."""
        return self.passed_at is not None and self.at_deadline == Stage.AtDeadline.ADJUDICATE

    def __str__(self) -> str:
        when = date_format(timezone.localtime(self.due_at), "DATETIME_FORMAT")
        values = {"round": self.round, "date": when, "count": self.open_at_deadline}
        if not self.ended:
            return ngettext(
                "Round %(round)s ends on %(date)s (%(count)s day left)",
                "Round %(round)s ends on %(date)s (%(count)s days left)",
                self.days_left,
            ) % {**values, "count": self.days_left}
        if self.passed_at is None or not self.open_at_deadline:
            return _("Round %(round)s ended on %(date)s.") % values
        if self.adjudicating and self.last_round:
            return (
                ngettext(
                    "Round %(round)s ended on %(date)s: its %(count)s unfinished game went to "
                    "adjudication.",
                    "Round %(round)s ended on %(date)s: its %(count)s unfinished games went to "
                    "adjudication.",
                    self.open_at_deadline,
                )
                % values
            )
        if self.adjudicating:
            return (
                ngettext(
                    "Round %(round)s ended on %(date)s: its %(count)s unfinished game went to "
                    "adjudication (a draw for the next round's pairing only); the next round is "
                    "being paired.",
                    "Round %(round)s ended on %(date)s: its %(count)s unfinished games went to "
                    "adjudication (draws for the next round's pairing only); the next round is "
                    "being paired.",
                    self.open_at_deadline,
                )
                % values
            )
        return (
            ngettext(
                "Round %(round)s ended on %(date)s with %(count)s game unfinished: the TDs decide "
                "it, and the next round is paired once it has a result.",
                "Round %(round)s ended on %(date)s with %(count)s games unfinished: the TDs decide "
                "them, and the next round is paired once they have results.",
                self.open_at_deadline,
            )
            % values
        )


def rounds_with_the_adjudicator(group: Group) -> list[int]:
    """The rounds of the Swiss group whose deadline sent unfinished games to adjudication and
    that still have games without a result (the TDs enter the adjudicator's decisions)."""
    numbers = SwissRound.objects.filter(
        group=group,
        deadline_passed_at__isnull=False,
        at_deadline=Stage.AtDeadline.ADJUDICATE,
    ).values_list("number", flat=True)
    open_games = Game.objects.filter(group=group, round__in=list(numbers), result="")
    return sorted({r for r in open_games.values_list("round", flat=True) if r is not None})


def adjudicator_note(group: Group | None) -> str:
    """What the TD's and the organizer's pages say of the rounds whose unfinished games went to
    adjudication at the deadline and still wait for a decision (empty: none)."""
    if group is None or not group.stage.is_swiss:
        return ""
    rounds = rounds_with_the_adjudicator(group)
    if not rounds:
        return ""
    return ngettext(
        "The unfinished games of round %(rounds)s are with the adjudicator: enter the "
        "decisions with “Adjudicated” ticked.",
        "The unfinished games of rounds %(rounds)s are with the adjudicator: enter the "
        "decisions with “Adjudicated” ticked.",
        len(rounds),
    ) % {"rounds": ", ".join(str(r) for r in rounds)}


def round_deadline(
    group: Group | None, now: datetime | None = None, *, stage: Stage | None = None
) -> RoundDeadline | None:
    """The deadline of the Swiss group's current round (None: not a Swiss group in play, or
    a round without a deadline). ``stage``: the group's, if the caller has it (no query for
    a group of another format)."""
    if group is None:
        return None
    stage = stage or group.stage
    if not stage.is_swiss or stage.status != Stage.Status.PUBLISHED:
        return None
    found = current_round(group)
    if found is None or found.due_at is None:
        return None
    return RoundDeadline(
        round=found.number,
        due_at=found.due_at,
        now=now or timezone.now(),
        passed_at=found.deadline_passed_at,
        at_deadline=found.at_deadline,
        open_at_deadline=found.open_at_deadline or 0,
        last_round=found.number >= (stage.swiss_rounds or 0),
    )
