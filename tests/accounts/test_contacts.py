"""Contact addresses by role: a player sees their own opponents', the group's TD and the
organizers see everyone's, the public and players of other groups none; the TD's address is
for the group's players, the TD and the organizers. Public files never hold an address."""

import pytest

from apps.core.people import td_name
from apps.groups.models import Seat
from apps.groups.permissions import contacts_for


def _group_page(client, world):
    return client.get(f"/t/{world.tournament.slug}/s/1/g/1/").text


def _shown(text: str, world) -> set[str]:
    return {a for a in world.emails(world.group) | world.emails(world.other_group) if a in text}


def test_the_start_list_page_shows_contacts_by_role(world, as_role):
    mine = world.player_entrant
    opponents = world.opponents_emails(mine)
    assert len(opponents) == 4
    assert _shown(_group_page(as_role("anonymous"), world), world) == set()
    assert _shown(_group_page(as_role("rival"), world), world) == set()
    assert _shown(_group_page(as_role("other_td"), world), world) == set()
    assert _shown(_group_page(as_role("player"), world), world) == opponents | {mine.email}
    assert _shown(_group_page(as_role("td"), world), world) == world.emails(world.group)
    assert _shown(_group_page(as_role("organizer"), world), world) == world.emails(world.group)


@pytest.mark.parametrize(
    "role, sees_td", [("anonymous", False), ("rival", False), ("player", True), ("td", True)]
)
def test_the_tds_address_is_for_the_groups_people(world, as_role, role, sees_td):
    page = _group_page(as_role(role), world)
    name = td_name(world.users["td"])  # the name is public (never the user name "td1")
    assert name in page
    assert ("td1@people.test" in page) is sees_td
    detail = as_role(role).get(f"/api/groups/{world.group.pk}/").json()
    assert detail["td"]["name"] == name
    assert detail["td_contact"] == ("td1@people.test" if sees_td else None)


def test_the_group_api_gives_contacts_by_role(world, as_role):
    def contacts(role):
        seats = as_role(role).get(f"/api/groups/{world.group.pk}/").json()["seats"]
        return {s["contact"] for s in seats} - {None}

    mine = world.player_entrant
    assert contacts("anonymous") == set() and contacts("rival") == set()
    assert contacts("player") == world.opponents_emails(mine) | {mine.email}
    assert contacts("td") == world.emails(world.group)

    games = as_role("player").get(f"/api/groups/{world.group.pk}/games/").json()["results"]
    for game in games:
        codes = {game["white"]["code"], game["black"]["code"]}
        if mine.code in codes:
            assert game["white_contact"] and game["black_contact"]
    shown = {g["white_contact"] for g in games} | {g["black_contact"] for g in games}
    assert shown - {None} == world.opponents_emails(mine) | {mine.email}
    games = as_role("anonymous").get(f"/api/groups/{world.group.pk}/games/").json()["results"]
    assert {g["white_contact"] for g in games} | {g["black_contact"] for g in games} == {None}


def test_contacts_cost_at_most_three_queries(world, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        contacts = contacts_for(world.users["player"], world.group)
    assert world.player_entrant.pk in contacts
    seat_3 = Seat.objects.get(group=world.group, number=3).entrant
    assert (seat_3.email in world.opponents_emails(world.player_entrant)) is (seat_3.pk in contacts)


def test_the_public_entrant_list_has_no_addresses_the_organizers_has(world, as_role):
    public = as_role("player").get(f"/t/{world.tournament.slug}/s/1/files/entrants.csv")
    text = b"".join(public.streaming_content).decode() if public.streaming else public.text
    assert text.splitlines()[0] == "code,name,nation,rating,person"
    assert "@" not in text
    organizer = as_role("organizer").get(f"/t/{world.tournament.slug}/s/1/entrants.csv")
    assert world.player_entrant.email in organizer.content.decode()
