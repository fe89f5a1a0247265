"""Celery tasks of Swiss play: thin wrappers around :mod:`.pairing` and :mod:`.deadlines`.

Their registered names are those of the office's tasks module, where they began: queued
messages and the beat schedule (``swiss-deadlines``) name them so.
"""

from __future__ import annotations

import logging
from datetime import datetime

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection
from django.utils.translation import gettext as _

from apps.core.errors import ActionError
from apps.core.tasks import STEP
from apps.stages.models import Stage

from . import deadlines, pairing

logger = logging.getLogger(__name__)


# How long one round's pairing may run: the engine's measured worst case at the largest field
# measured, with room for a loaded machine. A later round of 1,000 players takes 25 s on the
# benchmark machine (README, Benchmarks); the hardest 1,000-player state an outside probe built
# took 178 CPU-seconds (issue 26), and a worker sharing its cores with other work may take a
# few times that in wall time. Five times that worst case, 15 minutes, is the soft limit (the
# pairing is stopped, its transaction rolled back, the failure recorded); the hard limit, a
# minute later, kills a pairing that ignores it (the worker still records the failure).
# (The product sets no largest Swiss field; 1,000 players is the largest the engine is
# measured at. A bigger field that needs longer fails with this reason, recorded.)
PAIRING_SOFT_TIME_LIMIT = 15 * 60
PAIRING_TIME_LIMIT = PAIRING_SOFT_TIME_LIMIT + 60


def _pairing_failed(task, exc, task_id, args, kwargs, einfo) -> None:
    """``on_failure`` of the pairing task: once it failed for good (an unexpected error, its
    database retries spent, its hard time limit), the failure is recorded with its reason, so
    the stage's page and API show it and "pair the next round" can be asked again. (The
    pairing's transaction was rolled back: the stage is not left locked.)"""
    stage_id, round_number = args[0], args[1]
    user_id = args[2] if len(args) > 2 else kwargs.get("user_id")
    if isinstance(exc, (TimeLimitExceeded, SoftTimeLimitExceeded)):
        message = _timeout_message(round_number)
    else:
        message = _(
            "Round %(round)s could not be paired: the pairing stopped on an error (%(error)s). "
            "Pair the next round again; if it fails again, tell the site's administrators."
        ) % {"round": round_number, "error": exc.__class__.__name__}
    _record_failure(stage_id, round_number, user_id, message)


def _record_failure(stage_id: int, round_number: int, user_id: int | None, message: str) -> None:
    """Record why round ``round_number`` was not paired. A time limit may have stopped the
    pairing in the middle of a query, leaving its connection unusable: a database error
    closes it and the record is tried once more on a new one. Never raises (a stage deleted
    meanwhile, or a database that is away, is logged)."""
    for attempt in (1, 2):
        try:
            pairing.record_failure(stage_id, round_number, _user(user_id), message)
            return
        except Stage.DoesNotExist:
            return
        except DatabaseError:
            if attempt == 2:
                logger.exception(
                    "Swiss stage %s: round %s's failure was not recorded.", stage_id, round_number
                )
                return
            connection.close()


def _timeout_message(round_number: int) -> str:
    return _(
        "Round %(round)s could not be paired within %(minutes)s minutes and was stopped; "
        "nothing was written. Pair the next round again, at a quieter moment if the server "
        "is busy."
    ) % {"round": round_number, "minutes": PAIRING_SOFT_TIME_LIMIT // 60}


def _user(user_id: int | None):
    return get_user_model().objects.filter(pk=user_id).first() if user_id else None


# A step (acknowledged after it ran, retried on database errors) with its own time limit and
# failure hook. Kept by the outbox when the broker does not take it (apps/core/outbox.py):
# nothing else asks for a round again (an automatic pairing after a round's last result would
# be lost), and a repeated task pairs a round once.
PAIRING: dict = {
    **STEP,
    "outbox": True,
    "soft_time_limit": PAIRING_SOFT_TIME_LIMIT,
    "time_limit": PAIRING_TIME_LIMIT,
    "on_failure": _pairing_failed,
}


@shared_task(name="apps.office.tasks.pair_swiss_round", **PAIRING)
def pair_swiss_round(stage_id: int, round_number: int, user_id: int | None = None) -> int:
    """Pair round ``round_number`` of a Swiss stage (``pairing.pair_next_round``): a round
    already paired is left as it is, so a repeated or redelivered task writes nothing. A
    round that cannot be paired (the engine finds none, or the pairing passes its time limit)
    is recorded (the stage's page and API show why); returns the games written."""
    try:
        stage = Stage.objects.select_related("tournament").get(pk=stage_id)
        user = _user(user_id)
        outcome = pairing.pair_next_round(user, stage, round_number, system=True)
    except ActionError as exc:
        _record_failure(stage_id, round_number, user_id, exc.message)
        return 0
    except SoftTimeLimitExceeded:
        # Raised inside the pairing's transaction, which is rolled back: the stage's row lock
        # is let go, nothing is written.
        logger.error(
            "Swiss stage %s: round %s's pairing passed its time limit.", stage_id, round_number
        )
        _record_failure(stage_id, round_number, user_id, _timeout_message(round_number))
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
