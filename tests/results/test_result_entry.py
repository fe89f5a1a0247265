"""Result entry: audit trail, corrections with a reason, conflicts, withdrawals, standings."""

import pytest
from django.contrib.auth import get_user_model

from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import StageEntry
from apps.results.models import Game
from apps.results.services import enter_result, withdraw_entrant
from apps.standings.models import GroupStanding

pytestmark = pytest.mark.django_db(transaction=True)


def first_game(stage, number=1):
    return Game.objects.filter(group__stage=stage, group__number=number).order_by("number")[0]


def test_enter_then_correct_with_reason_keeps_every_event(published_stage, organizer):
    game = first_game(published_stage)
    enter_result(organizer, game, "1-0", expected_version=0)
    with pytest.raises(ActionError) as err:
        enter_result(organizer, game, "0-1", expected_version=1)
    assert err.value.code == ErrorCode.INVALID_INPUT and "reason" in err.value.message
    enter_result(organizer, game, "0-1", expected_version=1, reason="score sheet misread")
    game.refresh_from_db()
    assert (game.result, game.version) == ("0-1", 2)
    events = list(AuditEvent.objects.filter(game=game).order_by("id").values_list("action", "data"))
    assert [a for a, _ in events] == ["result.entered", "result.corrected"]
    assert events[1][1]["old"] == "1-0" and events[1][1]["new"] == "0-1"
    assert events[1][1]["reason"] == "score sheet misread"


def test_a_stale_save_gets_a_conflict_not_an_overwrite(published_stage, organizer):
    game = first_game(published_stage)
    enter_result(organizer, game, "1/2-1/2", expected_version=0)
    with pytest.raises(ActionError) as err:
        enter_result(organizer, game, "1-0", expected_version=0)
    assert err.value.code == ErrorCode.CONFLICT and err.value.http_status == 409
    game.refresh_from_db()
    assert game.result == "1/2-1/2"


def test_only_the_groups_td_and_organizers_enter_results(published_stage, organizer):
    users = get_user_model().objects
    td, other_td = users.create_user("td1"), users.create_user("td2")
    groups = list(published_stage.groups.order_by("number"))
    groups[0].td, groups[1].td = td, other_td
    groups[0].save()
    groups[1].save()
    game = first_game(published_stage)
    with pytest.raises(ActionError) as err:
        enter_result(other_td, game, "1-0", expected_version=0)
    assert err.value.code == ErrorCode.PERMISSION_DENIED
    enter_result(td, game, "1-0", expected_version=0)


def test_withdrawal_forfeits_every_unfinished_game_in_one_event(published_stage, organizer):
    game = first_game(published_stage)
    enter_result(organizer, game, "1-0", expected_version=0)
    entry = StageEntry.objects.get(stage=published_stage, entrant=game.white)
    changed = withdraw_entrant(organizer, entry, "left the tournament")
    assert len(changed) == 9
    games = Game.objects.filter(group=game.group).filter(white=game.white) | Game.objects.filter(
        group=game.group, black=game.white
    )
    results = {g.pk: g.result for g in games}
    assert results[game.pk] == "1-0"
    assert all(
        r == ("-+" if g.white_id == game.white_id else "+-")
        for g in games
        for r in [results[g.pk]]
        if g.pk != game.pk
    )
    assert AuditEvent.objects.filter(action="entrant.withdrawn").count() == 1
    standing = GroupStanding.objects.get(group=game.group, entrant=game.white)
    assert standing.withdrawn and standing.finished == 10 and standing.points == 1


def test_standings_are_recomputed_for_the_group(published_stage, organizer):
    game = first_game(published_stage)
    enter_result(organizer, game, "1-0", expected_version=0)
    rows = GroupStanding.objects.filter(group=game.group).order_by("position")
    assert rows.count() == game.group.size
    top = rows.first()
    assert top.entrant_id == game.white_id and top.place == "1" and top.points == 1
    assert top.finished == 1 and top.scheduled == 10


def test_unified_ranking_orders_the_whole_stage_and_shares_places(published_stage, organizer):
    from apps.standings.services import recompute_group, stage_ranking

    game = first_game(published_stage, number=2)
    enter_result(organizer, game, "0-1", expected_version=0)
    for group in published_stage.groups.all():
        recompute_group(group.pk)
    ranking = stage_ranking(published_stage)
    assert len(ranking) == 300
    assert ranking[0]["entrant__code"] == game.black.code and ranking[0]["place"] == "1"
    # the loser has 0 points but TS 100 (their opponent scored 1 of 1): alone in 2nd
    assert (ranking[1]["entrant__code"], ranking[1]["place"]) == (game.white.code, "2")
    # everyone else has the same key (no finished game): one shared place
    assert {r["place"] for r in ranking[2:]} == {"3-300"}
