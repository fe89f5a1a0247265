"""Find a player shows each entry's games with their results and links, and its points and
place (issue 27: it showed only the opponents)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.groups.models import Game, Seat
from apps.results.services import enter_result
from apps.standings.groups import recompute_group
from apps.standings.models import GroupStanding
from tests.worlds.pages import *  # noqa: F403

pytestmark = pytest.mark.django_db


def test_an_entry_found_shows_its_results_points_place_and_game_links(
    client, organizer, published_stage
):
    seat = Seat.objects.select_related("entrant", "group").filter(stage=published_stage).first()
    me = seat.entrant
    won, lost = Game.objects.filter(group=seat.group, white=me).order_by("number")[:2]
    enter_result(organizer, won, "1-0", expected_version=won.version)
    enter_result(organizer, lost, "0-1", expected_version=lost.version)
    recompute_group(seat.group_id)
    standing = GroupStanding.objects.get(group=seat.group, entrant=me)

    page = client.get(reverse("find-player", args=["web-cup"]), {"q": me.code}).content.decode()
    card = page[page.index('class="card player"') :]
    card = card[: card.index("</article>")]

    assert f"Place {standing.place} · points 1 · 2 of 10 games played" in card
    stage_path = f"/t/web-cup/s/{published_stage.order}/g/{seat.group.number}"
    assert f'href="{stage_path}/standings/"' in card
    for game, mine in ((won, "1"), (lost, "0")):
        link = f'href="{stage_path}/games/{game.number}/">game {game.number}</a>'
        assert link in card
        row = card[: card.index(link)]
        row = row[row.rindex("<tr>") :]
        assert f'<td class="num result">{mine}</td>' in row
    # The open games are there too, with a link and no result yet.
    assert card.count("/games/") == 10
    assert card.count('<td class="num result">…</td>') == 8


def test_an_entry_without_stored_standings_says_so(client, published_stage):
    seat = Seat.objects.select_related("entrant").filter(stage=published_stage).first()
    GroupStanding.objects.filter(group=seat.group).delete()
    page = client.get(reverse("find-player", args=["web-cup"]), {"q": seat.entrant.code})
    assert "Standings not computed yet." in page.content.decode()
