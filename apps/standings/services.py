"""The standings' actions: an organizer forcing a recompute. Computing and storing the
standings is ``groups.py``, the stage's ranking ``ranking.py``, keeping both fresh
``freshness.py``, and their Celery tasks ``tasks.py``."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer
from apps.groups.models import Group
from apps.stages.models import Stage

from .freshness import GROUP_STANDINGS, mark_rankings
from .models import GroupStanding


def force_recompute(user: Actor, stage: Stage, group: Group | None = None) -> list[int]:
    """An organizer's "recompute the standings": every group of the stage (or ``group``) is
    marked pending and its recompute queued, whatever was asked before, and the stage's
    stored ranking rebuilt. The stored rows lose their fingerprints, so every row is written
    again: a recompute trusts a row whose fingerprint is the one it computes (see
    ``GroupStanding.fingerprint``); this is the repair for rows changed outside the product
    (by hand in the database). Audited."""
    require_organizer(user, stage.tournament)
    if not stage.is_public:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Standings are kept once the draw is published; this stage is %(status)s.")
            % {"status": stage.get_status_display().lower()},
        )
    with transaction.atomic():
        if group is not None:
            group_ids = [group.pk]
        else:
            group_ids = list(Group.objects.filter(stage=stage).values_list("pk", flat=True))
        GroupStanding.objects.filter(group_id__in=group_ids, fingerprint__isnull=False).update(
            fingerprint=None
        )
        queued = GROUP_STANDINGS.mark(group_ids, timezone.now(), force=True)
        mark_rankings(stage)
        record(
            Action.STANDINGS_RECOMPUTE_FORCED,
            user,
            stage=stage,
            group=group,
            groups=len(group_ids),
        )
        transaction.on_commit(lambda: GROUP_STANDINGS.queue(queued))
    return group_ids
