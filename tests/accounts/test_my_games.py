""" "My games" (page and API): each stage of each of the player's entries with group, seat,
opponents (colour, contact, result), the TD, the standing and the qualification status."""

from decimal import Decimal

import pytest

from apps.accounts.games import my_stages
from apps.core.people import td_name
from apps.entrants.models import Entrant, StageEntry
from apps.results.services import enter_result, withdraw_entrant
from apps.stages.models import Stage


def _card(user, order=1):
    return next(c for c in my_stages(user) if c.stage.order == order)


def test_the_page_lists_opponents_with_colours_contacts_and_the_td(world, as_role):
    page = as_role("player").get("/me/")
    assert page.status_code == 200
    text = page.text
    assert world.player_entrant.name in text and "group 1" in text and "seat 1" in text
    for address in world.opponents_emails(world.player_entrant):
        assert f'href="mailto:{address}"' in text
    assert "td1@people.test" in text and "in play" in text
    others = world.emails(world.other_group)
    assert not any(address in text for address in others)


def test_results_and_standing_follow_the_games(world, django_capture_on_commit_callbacks):
    game = world.player_game
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(world.users["td"], game, "1-0", expected_version=game.version)
    card = _card(world.users["player"])
    mine = next(g for g in card.games if g.id == game.pk)
    player_is_white = game.white_id == world.player_entrant.pk
    assert mine.colour == ("W" if player_is_white else "B")
    assert mine.score == ("1" if player_is_white else "0")
    assert mine.result == "1-0"
    assert [g.score for g in card.games].count("") == 3
    assert card.points == (Decimal(1) if player_is_white else Decimal(0))
    assert card.place


def test_the_api_answers_the_same(world, as_role, django_capture_on_commit_callbacks):
    game = world.player_game
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(world.users["td"], game, "1/2-1/2", expected_version=game.version)
    me = as_role("player").get("/api/me/").json()
    assert me["username"] == "player" and me["directs"] == [] and me["organizes"] == []
    [entry] = me["entries"]
    assert entry["entrant"]["code"] == world.player_entrant.code
    assert entry["group"]["number"] == 1 and entry["seat"] == 1
    assert entry["td"] == {"name": td_name(world.users["td"]), "contact": "td1@people.test"}
    assert entry["status"] == "in_play"
    assert entry["standing"]["points"] == 0.5
    opponents = {g["opponent"]["contact"] for g in entry["games"]}
    assert opponents == world.opponents_emails(world.player_entrant)
    drawn = next(g for g in entry["games"] if g["id"] == game.pk)
    assert drawn["score"] == "½" and drawn["colour"] in ("white", "black")

    td = as_role("td").get("/api/me/").json()
    assert td["entries"] == [] and [g["number"] for g in td["directs"]] == [1]
    assert as_role("organizer").get("/api/me/").json()["organizes"][0]["slug"] == "acc-cup"


def test_qualification_status(world):
    player = world.users["player"]
    assert _card(player).status == "in_play"

    later = Stage.objects.create(tournament=world.tournament, order=2, kind=Stage.Kind.SEMIFINAL)
    StageEntry.objects.create(
        stage=later, entrant=world.player_entrant, source=StageEntry.Source.QUALIFIED
    )
    assert _card(player).status == "qualified"
    assert _card(player, order=2).status == "registered"  # no draw yet: no group, no games
    assert _card(player, order=2).group is None

    Stage.objects.filter(pk=world.stage.pk).update(status=Stage.Status.CLOSED)
    rival = world.users["rival"]
    assert _card(rival).status == "not_qualified"
    Stage.objects.filter(pk=world.stage.pk).update(kind=Stage.Kind.FINAL)
    assert _card(rival).status == "finished"


def test_a_withdrawn_entry_says_so(world):
    entry = StageEntry.objects.get(stage=world.stage, entrant=world.player_entrant)
    withdraw_entrant(world.users["td"], entry, "illness")
    card = _card(world.users["player"])
    assert card.status == "withdrawn"
    assert {g.score for g in card.games} == {"−"}


def test_an_unpublished_draw_stays_hidden(world):
    Stage.objects.filter(pk=world.stage.pk).update(status=Stage.Status.DRAWN)
    card = _card(world.users["player"])
    assert card.status == "registered" and card.group is None and card.games == []


@pytest.mark.parametrize("entries", [1, 2])
def test_the_page_costs_the_same_queries_however_many_entries(
    world, entries, django_assert_max_num_queries
):
    if entries == 2:
        Entrant.objects.filter(pk=world.rival_entrant.pk).update(user=world.users["player"])
    with django_assert_max_num_queries(8):
        cards = my_stages(world.users["player"])
    assert len(cards) == entries and all(len(c.games) == 4 for c in cards)


def test_signed_out_visitors_are_sent_to_sign_in(world, as_role):
    answer = as_role("anonymous").get("/me/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert as_role("anonymous").get("/api/me/").json()["code"] == "not_authenticated"
