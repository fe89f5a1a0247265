"""Finding a stage for an API request: one the user may see, or one the user organizes."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound

from apps.core.permissions import Actor, require_organizer

from .models import Stage
from .permissions import visible_stages_filter


def stages_visible_to(user: Actor) -> QuerySet[Stage]:
    """The stages ``user`` may see."""
    return Stage.objects.filter(visible_stages_filter(user)).select_related("tournament")


def stage_for_reading(request, pk: int, stages: QuerySet[Stage] | None = None) -> Stage:
    """A stage the user may see, or 404 (an unpublished stage does not exist for the public).

    ``stages`` is where to look (default :func:`stages_visible_to`; callers that show counts
    pass an annotated queryset of the visible stages)."""
    if stages is None:
        stages = stages_visible_to(request.user)
    stage = stages.filter(pk=pk).first()
    if stage is None:
        raise NotFound(
            _(
                "There is no stage %(id)s, or it is not published yet (its organizers see it "
                "once signed in)."
            )
            % {"id": pk}
        )
    return stage


def stage_for_action(request, pk: int) -> Stage:
    """A stage the user organizes, or 404 if there is none, or 403.

    The action checks the permission again; checking first answers 403 to someone who may not
    act before the body is looked at.
    """
    stage = Stage.objects.select_related("tournament").filter(pk=pk).first()
    if stage is None:
        raise NotFound(_("There is no stage %(id)s.") % {"id": pk})
    require_organizer(request.user, stage.tournament)
    return stage
