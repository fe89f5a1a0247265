"""A Swiss round's deadline passing (Celery beat, hourly: ``tasks.swiss_deadlines``).

Each round of a Swiss stage with ``swiss_round_days`` is due that many days after it started
(:class:`~apps.groups.models.SwissRound`, written at the publication for round 1 and by the
pairing for each later one). When the current round's deadline has passed,
:func:`swiss_deadlines_due` marks it, once, under the stage's row lock, audited
(``swiss.round_deadline_passed``: the round, its games still open and the mode), and acts as
the stage's ``swiss_at_deadline`` says:

- ``adjudicate``: the unfinished games go to adjudication (the TDs enter the adjudicator's
  decisions as adjudicated results) and the next round is paired at once
  (``tasks.pair_swiss_round``). For pairing only, each of those games counts as a draw until
  its result is entered (``state._read_cells``); the real result counts for the standings and
  for every later pairing.
- ``td``: nothing is paired; the round pairs itself, as always, once its last result is in.

In both modes the group's TD and the tournament's organizers are e-mailed once
(``notifications.tasks.swiss_round_deadline``) when games were still open. A sweep run twice,
or by two workers at once, acts once: the second finds the round marked.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from apps.core.audit import Action, record
from apps.groups.models import SwissRound
from apps.notifications import tasks as notify
from apps.stages.models import Stage
from apps.stages.services import locked

from . import tasks
from .state import swiss_state


def swiss_deadlines_due(now: datetime | None = None) -> list[int]:
    """Mark every Swiss stage's current round whose deadline is before ``now`` (default: now)
    and act on it; returns the stages acted on now. Rounds already marked, rounds with no
    deadline and stages not in play are left alone."""
    now = now or timezone.now()
    later = SwissRound.objects.filter(group=OuterRef("group"), number__gt=OuterRef("number"))
    candidates = list(
        SwissRound.objects.filter(
            due_at__lt=now,
            deadline_passed_at__isnull=True,
            group__stage__format=Stage.Format.SWISS,
            group__stage__status=Stage.Status.PUBLISHED,
        )
        .exclude(Exists(later))
        .order_by("pk")
        .values_list("pk", "group__stage_id")
    )
    return [stage_id for pk, stage_id in candidates if _pass_deadline(pk, stage_id, now)]


def _pass_deadline(round_id: int, stage_id: int, now: datetime) -> bool:
    """One round's deadline, checked again under the stage's row lock (the sweep's query may
    be stale: another run marked it, or the next round was paired meanwhile)."""
    with transaction.atomic():
        stage = locked(Stage(pk=stage_id))
        rnd = SwissRound.objects.select_related("group").get(pk=round_id)
        if (
            rnd.deadline_passed_at is not None
            or rnd.due_at is None
            or rnd.due_at >= now
            or stage.status != Stage.Status.PUBLISHED
            or not stage.is_swiss
        ):
            return False
        state = swiss_state(stage, lock=True)
        if state.group is None or state.group.pk != rnd.group_id or state.paired != rnd.number:
            return False  # not the current round (the next one is paired)
        mode = stage.swiss_at_deadline
        rnd.deadline_passed_at = now
        rnd.at_deadline = mode
        rnd.open_at_deadline = state.open_games
        rnd.save(update_fields=["deadline_passed_at", "at_deadline", "open_at_deadline"])
        record(
            Action.SWISS_ROUND_DEADLINE_PASSED,
            None,
            stage=stage,
            group=rnd.group,
            round=rnd.number,
            due_at=rnd.due_at.isoformat(),
            open_games=state.open_games,
            mode=mode,
        )
        if not state.open_games:
            return True  # every game has a result: the round pairs itself as always
        number = rnd.number
        if mode == Stage.AtDeadline.ADJUDICATE and not state.complete:
            transaction.on_commit(lambda: tasks.pair_swiss_round.delay(stage_id, number + 1, None))
        transaction.on_commit(lambda: notify.swiss_round_deadline.delay(stage_id, number))
    return True
