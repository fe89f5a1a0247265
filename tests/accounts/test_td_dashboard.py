"""TDs across their groups (issue 27): a dashboard of every group they direct (open games,
reports, deadlines) and one dispute queue; the stage dashboard's "Next:" says to assign TDs
while groups have none; closing a group asks first (the dashboard's Replace upload:
tests/office/test_organizer_pages.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.entrants.models import Entrant
from apps.groups.models import Game, Group
from apps.results.reports import dispute_report, report_result
from tests.worlds.people import *  # noqa: F403
from tests.worlds.published import make_user

pytestmark = pytest.mark.django_db


def player_wins(world, game) -> str:
    return "1-0" if game.white_id == world.player_entrant.pk else "0-1"


def opponent_of(world, game):
    user = make_user("opponent")
    other = game.black_id if game.white_id == world.player_entrant.pk else game.white_id
    Entrant.objects.filter(pk=other).update(user=user)
    return user


def test_the_td_dashboard_lists_their_groups_and_one_dispute_queue(world, web):
    game = world.player_game
    opponent = opponent_of(world, game)
    report = report_result(world.users["player"], game, player_wins(world, game))
    dispute_report(opponent, report, "I won on time")
    open_games = Game.objects.filter(group=world.group, result="").count()

    page = web(world.users["td"]).get(reverse("me-td")).content.decode()

    row = re.search(rf'<tr id="td-group-{world.group.pk}".*?</tr>', page, re.S).group(0)
    assert "Accounts Cup · Preliminary · group 1" in row
    assert f'data-role="open">{open_games}<' in row
    assert 'data-role="disputed">1<' in row
    results = reverse("group-results", args=["acc-cup", world.stage.order, 1])
    assert f'href="{results}"' in row
    assert f"td-group-{world.group.pk}" in page
    assert f"td-group-{world.other_group.pk}" not in page  # another TD's group
    queue = page[page.index('id="td-disputes"') :]
    assert "1 dispute to decide" in queue and "I won on time" in queue
    decide = reverse("game-result", args=["acc-cup", world.stage.order, 1, game.number])
    assert f'href="{decide}"' in queue


def test_my_games_links_a_td_to_the_dashboard_and_others_see_no_groups(world, web):
    assert 'id="td-dashboard-link"' in web(world.users["td"]).get(reverse("me")).content.decode()
    page = web(world.users["player"]).get(reverse("me-td")).content.decode()
    assert "You direct no group." in page


def test_next_says_to_assign_tds_while_a_group_has_none(world, web):
    organizer = web(world.users["organizer"])
    manage = reverse("stage-manage", args=["acc-cup", world.stage.order])
    page = organizer.get(manage).content.decode()
    assert 'id="next-assign-tds"' not in page  # both groups have a TD
    assert "nothing here: the draw is public" in page

    Group.objects.filter(pk=world.group.pk).update(td=None)
    page = organizer.get(manage).content.decode()
    assert 'id="next-assign-tds"' in page
    assert "assign a tournament director (TD) to the group that has none" in page
    assert "nothing here" not in page
    assert f'href="{reverse("stage-tds", args=["acc-cup", world.stage.order])}"' in page


def test_closing_a_group_asks_for_confirmation(world, web):
    Game.objects.filter(group=world.group).update(result="1-0")
    page = web(world.users["td"]).get(
        reverse("group-results", args=["acc-cup", world.stage.order, 1])
    )
    form = re.search(r'<form[^>]*id="close-group"[^>]*>', page.content.decode(), re.S).group(0)
    assert 'data-confirm="Close the group?' in form
