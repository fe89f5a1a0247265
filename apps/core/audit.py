"""Writing audit events (call inside the action's transaction)."""

from __future__ import annotations

from .models import AuditEvent


def record(
    action: str, actor=None, *, tournament=None, stage=None, group=None, game=None, **data
) -> AuditEvent:
    """Write one audit event (call inside the action's transaction)."""
    if stage is not None and tournament is None:
        tournament = stage.tournament
    return AuditEvent.objects.create(
        action=action,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        tournament=tournament,
        stage=stage,
        group=group,
        game=game,
        data=data,
    )
