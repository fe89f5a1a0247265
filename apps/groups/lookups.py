"""Finding stages (with their entrant and group counts) and groups for an API request."""

from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound

from apps.core.permissions import Actor
from apps.entrants.models import StageEntry
from apps.stages.lookups import stage_for_reading, stages_visible_to
from apps.stages.models import Stage
from apps.stages.permissions import visible_stages_filter

from .models import Group


def _count_of(model, **match) -> Coalesce:
    """A per-stage row count as a subquery (two joined COUNTs would multiply each other)."""
    rows = model.objects.filter(**match).order_by().values("stage")
    return Coalesce(
        Subquery(rows.annotate(n=Count("pk")).values("n")), 0, output_field=IntegerField()
    )


def counted_stages_visible_to(user: Actor) -> QuerySet[Stage]:
    """The stages ``user`` may see, with their entrant and group counts."""
    return stages_visible_to(user).annotate(
        entrant_count=_count_of(StageEntry, stage=OuterRef("pk")),
        group_count=_count_of(Group, stage=OuterRef("pk")),
    )


def counted_stage_for_reading(request, pk: int) -> Stage:
    """A stage the user may see, with its entrant and group counts, or 404."""
    return stage_for_reading(request, pk, counted_stages_visible_to(request.user))


def group_for_reading(request, pk: int) -> Group:
    """A group of a stage the user may see, or 404 (unpublished stages do not exist for the
    public)."""
    group = (
        Group.objects.filter(visible_stages_filter(request.user, "stage__"), pk=pk)
        .select_related("stage__tournament")
        .first()
    )
    if group is None:
        raise NotFound(
            _("There is no group %(id)s, or its stage is not published yet.") % {"id": pk}
        )
    return group
