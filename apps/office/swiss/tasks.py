"""Celery tasks of Swiss play: thin wrappers around :mod:`.pairing` and :mod:`.deadlines`.

Their registered names are those of the office's tasks module, where they began: queued
messages and the beat schedule (``swiss-deadlines``) name them so.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import DatabaseError

from apps.core.errors import ActionError
from apps.core.tasks import STEP
from apps.stages.models import Stage

from . import deadlines, pairing


@shared_task(name="apps.office.tasks.pair_swiss_round", **STEP)
def pair_swiss_round(stage_id: int, round_number: int, user_id: int | None = None) -> int:
    """Pair round ``round_number`` of a Swiss stage (``pairing.pair_next_round``): a round
    already paired is left as it is, so a repeated or redelivered task writes nothing. A
    round that cannot be paired is recorded (the stage's page and API show why); returns the
    games written."""
    stage = Stage.objects.select_related("tournament").get(pk=stage_id)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    try:
        outcome = pairing.pair_next_round(user, stage, round_number, system=True)
    except ActionError as exc:
        pairing.record_failure(stage_id, round_number, user, exc.message)
        return 0
    return outcome.games if outcome.created else 0


# The stubs' shared_task takes the options of our Task class (outbox) only with base=.
@shared_task(  # type: ignore[call-overload]
    name="apps.office.tasks.swiss_deadlines",
    outbox=False,
    acks_late=True,
    autoretry_for=(DatabaseError,),
    max_retries=3,
)
def swiss_deadlines(now: str | None = None) -> list[int]:
    """Every hour (beat): act on the Swiss rounds whose deadline passed
    (``deadlines.swiss_deadlines_due``; ``now`` an ISO date-time, default now). A second
    run, or one running alongside, does nothing more; the stages acted on now."""
    return deadlines.swiss_deadlines_due(datetime.fromisoformat(now) if now else None)
