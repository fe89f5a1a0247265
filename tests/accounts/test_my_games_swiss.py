""" "My games" and the start list of a Swiss stage: the games by round, the bye as its own
line, and the rounds paired of the stage's total."""

from decimal import Decimal

import pytest
from django.urls import reverse

from apps.accounts.games import my_stages
from apps.entrants.models import Entrant
from apps.groups.models import Game, SwissBye
from apps.groups.services import group_lines
from apps.office.swiss.pairing import start_next_round
from apps.stages.models import Tournament
from tests.office.conftest import user
from tests.office.test_swiss import drawn_and_published, play_round, swiss_stage


@pytest.fixture
def organizer(db):
    return user("swissorg")


@pytest.fixture
def two_rounds(organizer, django_capture_on_commit_callbacks):
    """A Swiss of 9 players and 3 rounds, round 1 played and round 2 paired: one bye a
    round."""
    capture = django_capture_on_commit_callbacks
    stage = drawn_and_published(organizer, swiss_stage(organizer, count=9, rounds=3), capture)
    play_round(organizer, stage, 1)
    with capture(execute=True):
        assert start_next_round(organizer, stage) == 2
    return stage


def _player_of(stage, round_number):
    """A user linked to the entrant with the bye of ``round_number``."""
    bye = SwissBye.objects.get(group__stage=stage, round=round_number)
    player = user(f"bye{round_number}")
    Entrant.objects.filter(pk=bye.entrant_id).update(user=player)
    return player, bye


def test_my_games_lists_a_swiss_by_round_with_the_bye(two_rounds, client):
    player, bye = _player_of(two_rounds, 1)
    (card,) = my_stages(player)
    assert card.is_swiss and card.paired == 2 and card.bye_round == 1
    rows = card.rows
    assert [(row.round, row.bye) for row in rows] == [(1, True), (2, False)]
    assert rows[0].text == "bye — 1 point"
    assert card.rounds_text == "Round 2 of 3"
    assert [g.round for g in card.games] == [2]  # the API's games: no bye among them

    client.force_login(player)
    page = client.get("/me/").content.decode()
    assert "Round 1" in page and "Round 2" in page and "Round 3<" not in page
    assert "bye — 1 point" in page
    assert "Round 2 of 3" in page
    assert page.index("Round 1") < page.index("bye — 1 point") < page.index(">Round 2<")


def test_the_bye_is_worth_the_tournaments_win_points(two_rounds):
    Tournament.objects.filter(pk=two_rounds.tournament_id).update(points_win=Decimal("3"))
    player, _bye = _player_of(two_rounds, 2)
    (card,) = my_stages(player)
    assert [(row.round, row.bye) for row in card.rows] == [(1, False), (2, True)]
    assert card.rows[1].text == "bye — 3 points"


def test_a_player_without_a_bye_sees_every_round_paired(two_rounds):
    byes = set(SwissBye.objects.filter(group__stage=two_rounds).values_list("entrant", flat=True))
    entrant = Entrant.objects.filter(stage_entries__stage=two_rounds).exclude(pk__in=byes).first()
    player = user("plain")
    Entrant.objects.filter(pk=entrant.pk).update(user=player)
    (card,) = my_stages(player)
    assert card.bye_round is None and [row.round for row in card.rows] == [1, 2]
    assert card.rounds_text == "Round 2 of 3"


def test_my_games_stays_within_eight_queries_for_a_swiss(two_rounds, django_assert_max_num_queries):
    player, bye = _player_of(two_rounds, 1)
    # a second entry of the same player in the same group
    other = Game.objects.filter(group__stage=two_rounds, round=2).first().white_id
    Entrant.objects.filter(pk=other).update(user=player)
    with django_assert_max_num_queries(8):
        cards = my_stages(player)
    assert len(cards) == 2 and all(c.paired == 2 for c in cards)
    assert {c.entrant.pk: c.bye_round for c in cards} == {bye.entrant_id: 1, other: None}


def test_the_start_list_shows_each_players_rounds_and_byes(two_rounds, client):
    group = two_rounds.groups.get()
    group.stage = two_rounds
    lines = {line.seat.entrant_id: line for line in group_lines(group)}
    for bye in SwissBye.objects.filter(group=group):
        rounds = lines[bye.entrant_id].by_round
        assert [r.number for r in rounds] == [1, 2]
        assert [r.bye for r in rounds] == [bye.round == 1, bye.round == 2]
    assert all(len(line.by_round) == 2 for line in lines.values())

    url = reverse("group", args=[two_rounds.tournament.slug, two_rounds.order, group.number])
    page = client.get(url).content.decode()
    startlist = page[page.index('class="table startlist"') :]
    assert startlist.count('<span class="bye"') == 2  # one a round
    assert startlist.count(">R1</span>") == 9 and startlist.count(">R2</span>") == 9
    assert ">R3</span>" not in startlist
    bye = SwissBye.objects.get(group=group, round=1)
    seat = group.seats.get(entrant_id=bye.entrant_id).number
    row = startlist[startlist.index(f'id="seat-{seat}"') :]
    row = row[: row.index("</tr>")]
    assert row.index(">R1</span>") < row.index(">bye</span>") < row.index(">R2</span>")
