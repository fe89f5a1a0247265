"""The pages everyone reads: tournaments, a published stage, a group's start list, find a player."""

import re

import pytest
from django.urls import reverse

from apps.groups.models import Game, Group, Seat
from apps.stages.models import Stage
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db


def stage_url(stage, name="stage", *args):
    return reverse(name, args=[stage.tournament.slug, stage.order, *args])


def test_home_lists_tournaments_with_stage_status_and_entrant_count(client, published_stage):
    page = client.get(reverse("home")).content.decode()
    assert "Web Cup" in page
    assert "Preliminary" in page and "Published" in page
    assert re.search(r'<td class="num">300</td>', page)


def test_tournament_page_shows_settings_and_stages_and_manage_links_only_to_organizers(
    client, organizer, registered_stage
):
    url = reverse("tournament", args=["web-cup"])
    page = client.get(url).content.decode()
    assert "Games per player" in page and "Torino" in page
    assert "Registration open" in page
    assert stage_url(registered_stage, "stage-manage") not in page
    client.force_login(organizer)
    assert stage_url(registered_stage, "stage-manage") in client.get(url).content.decode()


def test_unknown_tournament_is_404(client, db):
    assert client.get(reverse("tournament", args=["nope"])).status_code == 404


def test_a_stage_not_yet_published_is_404_to_the_public_and_open_to_organizers(
    client, stranger, organizer, drawn_stage
):
    url = stage_url(drawn_stage)
    group_url = stage_url(drawn_stage, "group", 1)
    assert client.get(url).status_code == 404
    assert client.get(group_url).status_code == 404
    client.force_login(stranger)
    assert client.get(url).status_code == 404
    client.force_login(organizer)
    assert client.get(url).status_code == 200
    assert client.get(group_url).status_code == 200


def test_a_published_stage_shows_counts_digests_the_verify_box_and_every_groups_certificate(
    client, published_stage
):
    response = client.get(stage_url(published_stage))
    assert response.status_code == 200
    page = response.content.decode()
    assert published_stage.entrants_digest in page
    assert published_stage.draw_digest in page
    assert "web seed" in page
    assert "silli_verify DRAW.json --entrants entrants.csv" in page
    assert str(Game.objects.filter(group__stage=published_stage).count()) in page
    groups = list(Group.objects.filter(stage=published_stage))
    assert len(groups) == 3
    for group in groups:
        assert group.get_absolute_url() in page
        assert group.formula_text in page
    assert page.count("principles hold") == 3
    assert "0 same-nation games" in page and "0 rematches" in page
    nation, count = groups[0].nation_mix[0]
    assert f"{nation}&nbsp;{count}" in page


def test_the_group_page_lists_every_seat_with_opponents_and_colours_in_formula_order(
    client, published_stage
):
    group = Group.objects.get(stage=published_stage, number=1)
    response = client.get(group.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    seat_1 = Seat.objects.select_related("entrant").get(group=group, number=1)
    row = page[page.index('id="seat-1"') : page.index('id="seat-2"')]
    assert seat_1.entrant.name in row
    white = re.findall(r'href="#seat-(\d+)"', row.split('class="colour black"')[0])
    black = re.findall(r'href="#seat-(\d+)"', row.split('class="colour black"')[1])
    n = group.size
    assert [int(s) for s in white] == [(1 + d - 1) % n + 1 for d in group.formula]
    assert [int(s) for s in black] == [(1 - d - 1) % n + 1 for d in group.formula]
    opponent = Seat.objects.select_related("entrant").get(group=group, number=int(white[0]))
    assert f'title="{opponent.entrant.name} ({opponent.entrant.nation}' in row
    assert page.count('class="colour-line"') == 2 * n


def test_the_group_page_loads_its_games_in_a_bounded_number_of_queries(
    client, published_stage, django_assert_max_num_queries
):
    url = Group.objects.get(stage=published_stage, number=2).get_absolute_url()
    with django_assert_max_num_queries(5):
        response = client.get(url)
    assert response.status_code == 200


def test_an_unknown_group_is_404(client, published_stage):
    assert client.get(stage_url(published_stage, "group", 99)).status_code == 404


def test_find_a_player_by_name_shows_group_seat_and_opponents_with_colours(
    client, published_stage, django_assert_max_num_queries
):
    seat = Seat.objects.select_related("entrant", "group").filter(stage=published_stage).first()
    entrant = seat.entrant
    surname = entrant.name.split(",")[0]
    # the entries, their games and opponents, then the games' results and the standings
    with django_assert_max_num_queries(7):
        response = client.get(reverse("find-player", args=["web-cup"]), {"q": surname.upper()})
    page = response.content.decode()
    assert entrant.code in page
    assert f"{seat.group.get_absolute_url()}#seat-{seat.number}" in page
    games = Game.objects.filter(group=seat.group).select_related("white", "black")
    as_white = [g.black for g in games if g.white_id == entrant.pk]
    as_black = [g.white for g in games if g.black_id == entrant.pk]
    assert len(as_white) == len(as_black) == 5
    card = page[page.index(entrant.code) :]
    card = card[: card.index("</article>")]
    rows = re.findall(
        r'<span class="colour (white|black)">[WB]</span>'
        r'<span class="colour-word"> (White|Black)</span></td>\s*'
        r'<td class="num">(\d+)</td>\s*<td>([^<]+)</td>',
        card,
    )
    assert [name for colour, _, _, name in rows if colour == "white"] == [o.name for o in as_white]
    assert sorted(name for colour, _, _, name in rows if colour == "black") == sorted(
        o.name for o in as_black
    )


def test_find_a_player_by_exact_code(client, published_stage):
    seat = Seat.objects.select_related("entrant").filter(stage=published_stage).last()
    page = client.get(reverse("find-player", args=["web-cup"]), {"q": seat.entrant.code})
    assert page.content.decode().count('class="card player"') == 1


def test_find_a_player_searches_only_published_stages(client, drawn_stage):
    entrant = Seat.objects.select_related("entrant").filter(stage=drawn_stage).first().entrant
    page = client.get(reverse("find-player", args=["web-cup"]), {"q": entrant.code})
    assert "No player named" in page.content.decode()


def test_find_a_player_without_a_query_shows_the_form(client, cup):
    response = client.get(reverse("find-player", args=["web-cup"]))
    assert response.status_code == 200
    assert 'name="q"' in response.content.decode()


def test_pages_are_made_for_phones(client, published_stage):
    page = client.get(stage_url(published_stage)).content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert 'class="table-wrap"' in page
    assert Stage.objects.get(pk=published_stage.pk).is_public
