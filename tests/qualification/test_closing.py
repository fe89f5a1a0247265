"""Closing groups and stages: what is missing is named, nothing changes on a refusal."""

import pytest
from django.contrib.auth import get_user_model

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.groups.models import Game
from apps.groups.services import assign_td
from apps.results import closing
from apps.results.services import enter_result
from apps.stages.models import Stage

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_group_with_open_games_cannot_close_and_the_refusal_names_them(played, organizer):
    group = played.groups.get(number=1)
    game = Game.objects.filter(group=group).order_by("number").first()
    game.result = ""
    game.save()

    with pytest.raises(ActionError) as refused:
        closing.close_group(organizer, group)

    assert refused.value.code == ErrorCode.WRONG_STATUS
    assert f"{game.number} ({game.white.name} – {game.black.name})" in refused.value.message
    assert refused.value.details == [{"game": game.pk, "number": game.number}]
    group.refresh_from_db()
    assert not group.is_closed


def test_the_td_closes_a_complete_group_and_results_are_then_final(played, organizer):
    td = get_user_model().objects.create_user("td1", "td1@example.org", "pw")
    other = get_user_model().objects.create_user("td2", "td2@example.org", "pw")
    group = played.groups.get(number=1)
    assign_td(organizer, group, td)
    assign_td(organizer, played.groups.get(number=2), other)

    with pytest.raises(ActionError) as refused:
        closing.close_group(other, group)
    assert refused.value.code == ErrorCode.PERMISSION_DENIED

    closing.close_group(td, group)

    group.refresh_from_db()
    assert group.is_closed and group.closed_by == td
    assert AuditEvent.objects.filter(action=Action.GROUP_CLOSED, group_id=group.pk).count() == 1
    game = Game.objects.filter(group=group).first()
    with pytest.raises(ActionError, match="closed"):
        enter_result(td, game, "1/2-1/2", expected_version=game.version, reason="typo")
    with pytest.raises(ActionError, match="reason"):
        closing.reopen_group(organizer, group, " ")
    closing.reopen_group(organizer, group, "a correction arrived")
    enter_result(td, game, "1/2-1/2", expected_version=game.version, reason="typo")


def test_the_stage_closes_only_when_every_game_has_a_result(played, organizer):
    open_game = Game.objects.filter(group__stage=played, group__number=2).first()
    open_game.result = ""
    open_game.save()

    with pytest.raises(ActionError) as refused:
        closing.close_stage(organizer, played)
    assert refused.value.details == [{"group": 2, "open_games": 1}]
    played.refresh_from_db()
    assert played.status == Stage.Status.PUBLISHED
    assert not played.groups.filter(closed_at__isnull=False).exists()

    assert closing.send_to_adjudication(organizer, played) == 1
    played.refresh_from_db()
    assert played.adjudication_requested_at is not None
    enter_result(organizer, open_game, "1-0", expected_version=open_game.version, adjudicated=True)

    closing.close_stage(organizer, played)

    played.refresh_from_db()
    assert played.status == Stage.Status.CLOSED and played.closed_at is not None
    assert played.groups.filter(closed_at__isnull=True).count() == 0
    summary = closing.play_summary(played)
    assert (summary.groups, summary.closed, summary.open_games) == (3, 3, 0)
