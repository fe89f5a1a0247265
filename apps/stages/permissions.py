"""Which stages a user may see, as a queryset filter (``can_view_stage`` decides for one)."""

from __future__ import annotations

from django.db.models import Q

from apps.core.permissions import Actor, signed_in

from .models import Stage


def public_stages_filter(to_stage: str = "") -> Q:
    """Published and closed stages, as a filter on a queryset that reaches a stage through
    ``to_stage`` (``""`` for stages themselves, ``"stage__"`` for groups or seats)."""
    return Q(**{f"{to_stage}status__in": [Stage.Status.PUBLISHED, Stage.Status.CLOSED]})


def visible_stages_filter(user: Actor, to_stage: str = "") -> Q:
    """The stages ``user`` may see (as ``apps.core.permissions.can_view_stage`` decides for
    one), as a filter."""
    if not signed_in(user):
        return public_stages_filter(to_stage)
    if user.is_staff:
        return Q()
    organized = user.organized_tournaments.values("pk")
    return public_stages_filter(to_stage) | Q(**{f"{to_stage}tournament__in": organized})
