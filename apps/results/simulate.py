"""Simulated results for demos and tests: rating-based, deterministic from a seed.

One bulk action: every simulated result is an audit event like a TD's entry, withdrawals go
through :func:`~apps.results.services.withdraw_entrant`, and each group's standings are
recomputed once at the end.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from apps.core.audit import Action, AuditEvent, result_change_data
from apps.core.bulk import insert_rows, update_rows
from apps.core.permissions import Actor, require_organizer
from apps.core.results import Result
from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.silli.rng import ChanceStream
from apps.standings.groups import recompute_group

from .services import withdraw_entrant
from .settling import SIMULATION, settle_reports

DRAW_RATE = 0.45  # correspondence chess draws a lot
CHUNK = 20_000  # games read and written at a time


def expected_white_score(white_rating: int | None, black_rating: int | None) -> float:
    a, b = white_rating or 2000, black_rating or 2000
    return 1.0 / (1.0 + 10 ** ((b - a) / 400.0))


def simulate_results(
    user: Actor, stage, *, share: float = 0.6, withdrawals: float = 0.004, seed: str = "simulation"
) -> int:
    """Finish about ``share`` of the stage's open games and withdraw about ``withdrawals``
    of its entrants. Returns the number of results entered.

    The games are read and written CHUNK at a time (plain rows, written with
    :func:`~apps.core.bulk.update_rows` and :func:`~apps.core.bulk.insert_rows`), so the
    memory it takes does not grow with the stage: a 100,000-entrant stage has 500,000 games.
    """
    require_organizer(user, stage.tournament)
    # Named by the tournament and the stage's place in it, not by database ids: the same
    # seed gives the same results on any database, whatever was created there before.
    rng = ChanceStream(seed, f"results/{stage.tournament.slug}/{stage.order}")
    now = timezone.now()
    games = (
        Game.objects.filter(group__stage=stage, result="")
        .order_by("group__number", "number")
        .values_list("pk", "group_id", "version", "white__rating", "black__rating")
    )
    entered = 0
    with transaction.atomic():
        chunk: list[tuple] = []
        for pk, group_id, version, white_rating, black_rating in games.iterator(CHUNK):
            if rng.uniform() >= share:
                continue
            e = expected_white_score(white_rating, black_rating)
            win = max(0.0, e - DRAW_RATE / 2)
            loss = max(0.0, 1 - e - DRAW_RATE / 2)
            u = rng.uniform()
            result = (
                Result.WHITE_WINS
                if u < win
                else Result.BLACK_WINS
                if u < win + loss
                else Result.DRAW
            )
            # correspondence games end over months: spread the results over the past year
            when = now - timedelta(days=rng.below(365), minutes=rng.below(1440))
            chunk.append((pk, group_id, result.value, version + 1, when))
            if len(chunk) >= CHUNK:
                entered += _write(user, stage, chunk)
                chunk = []
        entered += _write(user, stage, chunk)
    codes = StageEntry.objects.filter(stage=stage).order_by("entrant__code")
    for entry_id in codes.values_list("pk", flat=True).iterator(CHUNK):
        if rng.uniform() < withdrawals:
            withdraw_entrant(user, StageEntry.objects.get(pk=entry_id), "withdrew (simulated)")
    for group_id in stage.groups.values_list("pk", flat=True):
        recompute_group(group_id)
    return entered


def _write(user: Actor, stage, chunk: list[tuple]) -> int:
    """One chunk of simulated results: the games, and an audit event each."""
    update_rows(
        Game,
        ["result", "version", "updated_at", "finished_on"],
        (
            (pk, result, version, when, timezone.localdate(when))
            for pk, _group, result, version, when in chunk
        ),
    )
    data = result_change_data(old="", new="", adjudicated=False, reason="")
    insert_rows(
        AuditEvent,
        ["action", "actor_id", "tournament_id", "stage_id", "group_id", "game_id", "data"],
        (
            (
                Action.RESULT_ENTERED.value,
                user.pk,
                stage.tournament_id,
                stage.pk,
                group_id,
                pk,
                {**data, "new": result, "simulated": True},
            )
            for pk, group_id, result, _version, _when in chunk
        ),
    )
    settle_reports(user, SIMULATION, group_ids={group_id for _pk, group_id, *_rest in chunk})
    return len(chunk)
