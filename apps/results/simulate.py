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
from apps.core.permissions import require_organizer
from apps.core.results import Result
from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.silli.rng import ChanceStream
from apps.standings.services import recompute_group

from .services import withdraw_entrant

DRAW_RATE = 0.45  # correspondence chess draws a lot


def expected_white_score(white_rating: int | None, black_rating: int | None) -> float:
    a, b = white_rating or 2000, black_rating or 2000
    return 1.0 / (1.0 + 10 ** ((b - a) / 400.0))


def simulate_results(
    user, stage, *, share: float = 0.6, withdrawals: float = 0.004, seed: str = "simulation"
) -> int:
    """Finish about ``share`` of the stage's open games and withdraw about ``withdrawals``
    of its entrants. Returns the number of results entered."""
    require_organizer(user, stage.tournament)
    rng = ChanceStream(seed, f"results/{stage.pk}")
    now = timezone.now()
    games = list(
        Game.objects.filter(group__stage=stage, result="")
        .select_related("white", "black", "group")
        .order_by("group__number", "number")
    )
    finished = []
    for game in games:
        if rng.uniform() >= share:
            continue
        e = expected_white_score(game.white.rating, game.black.rating)
        win = max(0.0, e - DRAW_RATE / 2)
        loss = max(0.0, 1 - e - DRAW_RATE / 2)
        u = rng.uniform()
        game.result = (
            Result.WHITE_WINS if u < win else Result.BLACK_WINS if u < win + loss else Result.DRAW
        )
        game.version += 1
        # correspondence games end over months: spread the results over the past year
        game.updated_at = now - timedelta(days=rng.below(365), minutes=rng.below(1440))
        finished.append(game)
    with transaction.atomic():
        Game.objects.bulk_update(finished, ["result", "version", "updated_at"], batch_size=2000)
        AuditEvent.objects.bulk_create(
            [
                AuditEvent(
                    action=Action.RESULT_ENTERED,
                    actor=user,
                    tournament_id=stage.tournament_id,
                    stage_id=stage.pk,
                    group_id=g.group_id,
                    game_id=g.pk,
                    data={
                        **result_change_data(old="", new=g.result, adjudicated=False, reason=""),
                        "simulated": True,
                    },
                )
                for g in finished
            ],
            batch_size=2000,
        )
    entries = list(StageEntry.objects.filter(stage=stage).order_by("entrant__code"))
    for entry in entries:
        if rng.uniform() < withdrawals:
            withdraw_entrant(user, entry, "withdrew (simulated)")
    for group_id in stage.groups.values_list("pk", flat=True):
        recompute_group(group_id)
    return len(finished)
