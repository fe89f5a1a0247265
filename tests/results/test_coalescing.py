"""One queued recompute per group, however many results arrive meanwhile."""

import pytest

from apps.groups.models import Group
from apps.standings import freshness
from apps.standings import groups as group_standings

pytestmark = pytest.mark.django_db(transaction=True)


def test_changes_while_a_recompute_is_queued_queue_nothing_more(published_stage, monkeypatch):
    queued = []
    monkeypatch.setattr(
        "apps.standings.tasks.recompute_group_standings.apply_async",
        lambda args, countdown: queued.append(args),
    )
    group = published_stage.groups.first()
    assert freshness.schedule_recompute(group.pk) is True
    assert freshness.schedule_recompute(group.pk) is False
    assert freshness.schedule_recompute(group.pk) is False
    assert queued == [(group.pk,)]
    group_standings.recompute_group(group.pk)  # the task clears the mark first
    assert not Group.objects.get(pk=group.pk).standings_pending
    assert freshness.schedule_recompute(group.pk) is True
    assert len(queued) == 2
