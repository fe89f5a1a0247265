"""A player's profile (apps/players/profiles.py): the page ``/players/{id}/`` and
``GET /api/players/{id}/`` show a person's events (stage, group, place, points), games with
links, each group's rating report line and norm figures; the contacts only to the player,
the organizers of their events and staff."""

import re
from datetime import date
from decimal import Decimal

import pytest
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from apps.entrants.models import Entrant, Person
from apps.groups.models import Game
from apps.ratinglists.models import RatingList, RatingListEntry, StageRatingList
from apps.results.services import enter_result

pytestmark = pytest.mark.django_db

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.test\b")


def person_of(world) -> Person:
    return Person.objects.get(entries=world.player_entrant)


def page(person: Person) -> str:
    return reverse("player-profile", args=[person.pk])


def api(person: Person) -> str:
    return reverse("api-player-profile", args=[person.pk])


def player_games(world) -> list[Game]:
    mine = Q(white=world.player_entrant) | Q(black=world.player_entrant)
    return list(Game.objects.filter(mine, group=world.group).order_by("number"))


def play(world, capture) -> None:
    """Everyone rated 2200. The player wins their first game, draws the second, wins the
    third by forfeit (not rated), and the fourth is still being played."""
    Entrant.objects.filter(tournament=world.tournament).update(rating=2200)
    games = player_games(world)
    organizer = world.users["organizer"]
    won = {True: "1-0", False: "0-1"}
    forfeit = {True: "+-", False: "-+"}
    with capture(execute=True):
        white = games[0].white_id == world.player_entrant.pk
        enter_result(organizer, games[0], won[white], expected_version=0)
        enter_result(organizer, games[1], "1/2-1/2", expected_version=0)
        white = games[2].white_id == world.player_entrant.pk
        enter_result(organizer, games[2], forfeit[white], expected_version=0)


def test_the_world_ties_the_players_account_to_their_person(world):
    person = person_of(world)
    assert person.user == world.users["player"]
    assert person.rating_id == world.player_entrant.person


def test_the_public_page_shows_the_events_and_games_without_any_address(world, as_role):
    person = person_of(world)
    answer = as_role("anonymous").get(page(person))
    assert answer.status_code == 200
    html = answer.content.decode()
    assert person.name in html and person.federation in html
    cup = world.tournament
    assert reverse("group", args=[cup.slug, 1, world.group.number]) in html
    for game in player_games(world):
        assert reverse("game", args=[cup.slug, 1, world.group.number, game.number]) in html
    assert 'id="contacts"' not in html
    assert not ADDRESS.findall(html)


@pytest.mark.parametrize("role", ["player", "organizer", "staff"])
def test_the_player_organizers_and_staff_see_the_contacts(world, as_role, role):
    html = as_role(role).get(page(person_of(world))).content.decode()
    assert 'id="contacts"' in html
    assert world.player_entrant.email in html and world.users["player"].email in html


@pytest.mark.parametrize("role", ["anonymous", "rival", "td", "other_td"])
def test_others_get_no_contacts_from_the_api(world, as_role, role):
    answer = as_role(role).get(api(person_of(world)))
    assert answer.status_code == 200
    assert answer.json()["contacts"] is None
    assert not ADDRESS.findall(answer.content.decode())


def test_the_api_gives_the_player_their_contacts(world, as_role):
    body = as_role("player").get(api(person_of(world))).json()
    assert set(body["contacts"]) == {world.player_entrant.email, world.users["player"].email}


def test_the_rating_report_and_norm_figures_follow_the_played_games(
    world, as_role, django_capture_on_commit_callbacks
):
    play(world, django_capture_on_commit_callbacks)
    body = as_role("anonymous").get(api(person_of(world))).json()
    [event] = body["events"]
    assert (event["tournament"], event["stage"], event["group"]) == (
        world.tournament.slug,
        1,
        world.group.number,
    )
    assert event["rating"] == 2200 and event["points"] == 2.5 and event["place"]
    # By hand: two rated games (the forfeit is not rated, the open game not finished),
    # 1½ points against an expected 2 × 0.5; K 20 (an established player below 2400):
    # 20 × (1.5 − 1.0) = +10.0.
    report = event["rating_report"]
    assert (report["games"], report["score"], report["k"]) == (2, 1.5, 20)
    assert Decimal(report["expected"]) == Decimal(1)
    assert (report["change"], report["new_rating"], report["provisional"]) == (
        "10.0",
        "2210.0",
        False,
    )
    norms = {n["level"]: n for n in event["norms"]}
    assert set(norms) == {"GM", "SIM", "IM", "CCM", "CCE"}
    assert norms["IM"]["text"] == "IM norm: 2 rated games, at least 8 needed"
    assert not norms["IM"]["achieved"]
    assert "unofficial" in body["norms_note"]
    scores = sorted(g["score"] for g in event["games"])
    assert scores == ["", "+", "1", "½"]


def test_the_page_shows_the_rating_change_and_the_norm_words(
    world, as_role, django_capture_on_commit_callbacks
):
    play(world, django_capture_on_commit_callbacks)
    html = as_role("anonymous").get(page(person_of(world))).content.decode()
    assert "+10.0" in html and "2210.0" in html
    assert "GM norm: 2 rated games, at least 8 needed" in html
    assert "unofficial unless the event is a registered title tournament" in html


def test_the_rating_lists_give_the_history_the_title_and_k(
    world, as_role, django_capture_on_commit_callbacks
):
    play(world, django_capture_on_commit_callbacks)
    older = RatingList.objects.create(name="ICCF list 2026/1", list_date=date(2026, 1, 1))
    newer = RatingList.objects.create(name="ICCF list 2026/4", list_date=date(2026, 10, 1))
    me = world.player_entrant
    for rating_list, games, title in ((older, 4, ""), (newer, 10, "IM")):
        RatingListEntry.objects.create(
            rating_list=rating_list,
            person=me.person,
            name=me.name,
            federation=me.nation,
            rating=2200,
            games=games,
            title=title,
        )
    StageRatingList.objects.create(stage=world.stage, rating_list=newer, applied_at=timezone.now())
    body = as_role("anonymous").get(api(person_of(world))).json()
    assert body["title"] == "IM"
    assert [(r["list"], r["list_date"], r["games"]) for r in body["rating_lists"]] == [
        ("ICCF list 2026/4", "2026-10-01", 10),
        ("ICCF list 2026/1", "2026-01-01", 4),
    ]
    # 10 rated games before the event (the stage's list): K 40, so 40 × (1.5 − 1.0) = +20.0.
    report = body["events"][0]["rating_report"]
    assert (report["k"], report["change"], report["new_rating"]) == (40, "20.0", "2220.0")
    html = as_role("anonymous").get(page(person_of(world))).content.decode()
    assert 'id="rating-lists"' in html and "ICCF list 2026/4" in html


def test_an_unrated_player_has_a_provisional_line(world, as_role):
    Entrant.objects.filter(pk=world.player_entrant.pk).update(rating=None)
    report = as_role("anonymous").get(api(person_of(world))).json()["events"][0]["rating_report"]
    assert report["provisional"] is True and report["change"] is None and report["k"] is None


def test_opponents_with_a_profile_are_linked(world, as_role):
    html = as_role("anonymous").get(page(person_of(world))).content.decode()
    game = player_games(world)[0]
    opponent = game.black if game.white_id == world.player_entrant.pk else game.white
    assert reverse("player-profile", args=[opponent.profile_id]) in html


def test_a_player_of_no_public_stage_is_not_found_by_the_public(world, as_role):
    world.stage.status = world.stage.Status.REGISTRATION_CLOSED
    world.stage.save(update_fields=["status"])
    person = person_of(world)
    for role in ("anonymous", "rival", "td"):
        assert as_role(role).get(api(person)).status_code == 404
        assert as_role(role).get(page(person)).status_code == 404
    assert len(as_role("organizer").get(api(person)).json()["events"]) == 1
    own = as_role("player").get(api(person)).json()
    assert own["events"] == [] and own["contacts"]
    assert as_role("player").get(page(person)).status_code == 200


def test_an_unknown_player_is_404_on_the_page_and_in_the_api(world, as_role):
    client = as_role("anonymous")
    missing = Person.objects.order_by("-pk").first().pk + 1
    assert client.get(reverse("player-profile", args=[missing])).status_code == 404
    answer = client.get(reverse("api-player-profile", args=[missing]))
    assert answer.status_code == 404
    assert answer.json()["message"] == f"There is no player {missing}."


def test_my_profile_leads_to_the_players_own_page(world, as_role):
    answer = as_role("player").get(reverse("player-profile-mine"))
    assert answer.status_code == 302 and answer["Location"] == page(person_of(world))
    assert as_role("td").get(reverse("player-profile-mine")).status_code == 404


def test_find_a_player_links_to_the_profile(world, as_role):
    html = (
        as_role("anonymous")
        .get(reverse("find-player", args=[world.tournament.slug]), {"q": world.player_entrant.code})
        .content.decode()
    )
    assert page(person_of(world)) in html


def test_the_profile_reads_in_a_bounded_number_of_queries(
    world, as_role, django_assert_max_num_queries
):
    """Nine for the person, their seats, standings, games and contacts, four for the one
    group's rating report and norm figures (its seats, its games, the list the stage used)."""
    client = as_role("player")
    with django_assert_max_num_queries(13):
        assert client.get(page(person_of(world))).status_code == 200
