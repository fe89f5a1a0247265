"""Result entry: audit trail, corrections with a reason, conflicts, withdrawals, standings."""

from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.results.api import GameDetailSerializer
from apps.results.history import game_history, recent_changes, result_label
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
    events = list(
        AuditEvent.objects.filter(game_id=game.pk).order_by("id").values_list("action", "data")
    )
    assert [a for a, _ in events] == ["result.entered", "result.corrected"]
    assert events[1][1]["old"] == "1-0" and events[1][1]["new"] == "0-1"
    assert events[1][1]["reason"] == "score sheet misread"


def test_a_result_keeps_its_finish_date_until_the_game_is_back_in_progress(
    published_stage, organizer
):
    game = first_game(published_stage)
    enter_result(organizer, game, "1-0", expected_version=0)
    game.refresh_from_db()
    assert game.finished_on == timezone.localdate()
    Game.objects.filter(pk=game.pk).update(finished_on=date(2026, 1, 2))
    enter_result(organizer, game, "0-1", expected_version=1, reason="misread")
    game.refresh_from_db()
    assert game.finished_on == date(2026, 1, 2)  # a correction keeps the day it ended
    enter_result(organizer, game, "", expected_version=2, reason="not finished")
    game.refresh_from_db()
    assert game.finished_on is None


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
    assert AuditEvent.objects.filter(action=Action.ENTRANT_WITHDRAWN).count() == 1
    standing = GroupStanding.objects.get(group=game.group, entrant=game.white)
    assert standing.withdrawn and standing.finished == 10 and standing.points == 1


def test_a_withdrawal_marks_exactly_the_games_it_forfeited_and_the_history_shows_them(
    published_stage, organizer
):
    game = first_game(published_stage)
    enter_result(organizer, game, "1-0", expected_version=0)
    entry = StageEntry.objects.get(stage=published_stage, entrant=game.white)
    code = entry.entrant.code
    changed = withdraw_entrant(organizer, entry, "left the tournament")
    entry.refresh_from_db()
    mine = Game.objects.filter(group=game.group).filter(
        Q(white=entry.entrant) | Q(black=entry.entrant)
    )
    unfinished = {g.pk for g in mine if g.pk != game.pk}
    assert len(unfinished) == 9 and {g.pk for g in changed} == unfinished
    marked = list(Game.objects.filter(group__stage=published_stage, forfeited_by__isnull=False))
    assert {g.pk for g in marked} == unfinished
    assert {(g.forfeited_by_id, g.forfeited_at) for g in marked} == {
        (entry.entrant_id, entry.withdrawn_at)
    }
    game.refresh_from_db()
    assert game.forfeited_by_id is None and game.forfeited_at is None

    # Nothing reads the games back from the audit event: drop its list, the history stays.
    event = AuditEvent.objects.get(action=Action.ENTRANT_WITHDRAWN)
    assert [g["game"] for g in event.data.pop("games")] == [g.pk for g in changed]
    event.save(update_fields=["data"])

    forfeit = Game.objects.select_related("white", "black", "group").get(pk=changed[0].pk)
    [withdrawal] = game_history(forfeit)
    assert withdrawal.what == f"withdrawal of {code}" and withdrawal.reason == "left the tournament"
    assert (withdrawal.old, withdrawal.new) == (result_label(""), result_label(forfeit.result))
    [entered] = game_history(Game.objects.select_related("white", "black").get(pk=game.pk))
    assert entered.what == "entered"
    history = GameDetailSerializer(forfeit).data["history"]
    assert [(h["action"], h["old"], h["new"]) for h in history] == [
        (Action.ENTRANT_WITHDRAWN, "", forfeit.result)
    ]
    latest = recent_changes(game.group)[0]
    assert latest.what == f"withdrawal of {code}" and latest.new == "9 forfeits"

    # A later correction of the forfeit keeps the mark and both lines of the history.
    enter_result(organizer, forfeit, "1/2-1/2", expected_version=forfeit.version, reason="agreed")
    forfeit.refresh_from_db()
    assert forfeit.forfeited_by_id == entry.entrant_id
    assert [c.what for c in game_history(forfeit)] == ["corrected", f"withdrawal of {code}"]


def test_standings_are_recomputed_for_the_group(published_stage, organizer):
    game = first_game(published_stage)
    enter_result(organizer, game, "1-0", expected_version=0)
    rows = GroupStanding.objects.filter(group=game.group).order_by("position")
    assert rows.count() == game.group.size
    top = rows.first()
    assert top.entrant_id == game.white_id and top.place == "1" and top.points == 1
    assert top.finished == 1 and top.scheduled == 10


def test_unified_ranking_orders_the_whole_stage_and_shares_places(published_stage, organizer):
    from apps.standings.groups import recompute_group
    from apps.standings.ranking import stage_ranking

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
