"""Result entry, withdrawal, TD assignment and standings pages, with the Django test client."""

import csv
import io
import re

import pytest
from django.db.models import Q
from django.urls import reverse

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.results.services import enter_result
from tests.worlds.results import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db


def url(name: str, group, *more) -> str:
    stage = group.stage
    return reverse(name, args=[stage.tournament.slug, stage.order, group.number, *more])


def post_result(client, group, game, result, version, reason="", adjudicated=False):
    data = {
        "result": result,
        "version": version,
        "reason": reason,
        "next": url("group-results", group),
    }
    if adjudicated:
        data["adjudicated"] = "on"
    return client.post(url("game-result", group, game.number), data)


# ---------------------------------------------------------------------------
# Who may enter results
# ---------------------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_the_login_page(web, group, games):
    client = web(None)
    for address in (url("group-results", group), url("game-result", group, 1)):
        response = client.get(address)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    response = post_result(client, group, games[0], "1-0", 0)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Game.objects.get(pk=games[0].pk).result == ""


def test_a_stranger_and_another_groups_td_get_403_and_change_nothing(
    web, group, games, stranger, other_td
):
    for user in (stranger, other_td):
        client = web(user)
        assert client.get(url("group-results", group)).status_code == 403
        assert client.get(url("game-result", group, 1)).status_code == 403
        assert post_result(client, group, games[0], "1-0", 0).status_code == 403
        response = client.post(
            url("group-withdraw", group), {"entrant": games[0].white.code, "reason": "ill"}
        )
        assert response.status_code == 403
    assert Game.objects.get(pk=games[0].pk).result == ""
    assert not StageEntry.objects.filter(withdrawn_at__isnull=False).exists()


def test_the_groups_td_and_the_organizers_open_the_results_page(web, group, td, organizer):
    for user in (td, organizer):
        response = web(user).get(url("group-results", group))
        assert response.status_code == 200
        html = response.content.decode()
        # every game once as a link (500 games: 5 White games in each of 100 rows)
        assert len(re.findall(r'<a class="rc ', html)) == 500
        assert 'id="result-dialog"' in html and "js/results.js" in html


def test_the_results_page_needs_a_bounded_number_of_queries(
    web, group, td, games, django_assert_max_num_queries
):
    enter_result(td, games[0], "1-0", expected_version=0)
    client = web(td)
    # 16: the recent changes read the group's events and its games' imported results
    with django_assert_max_num_queries(16):
        assert client.get(url("group-results", group)).status_code == 200


# ---------------------------------------------------------------------------
# Entering and correcting a result
# ---------------------------------------------------------------------------


def test_the_td_enters_a_result_and_returns_to_the_grid(web, group, games, td):
    game = games[0]
    response = post_result(web(td), group, game, "1-0", 0, adjudicated=True)
    assert response.status_code == 302
    assert response["Location"] == url("group-results", group)
    game.refresh_from_db()
    assert (game.result, game.adjudicated, game.version) == ("1-0", True, 1)
    event = AuditEvent.objects.get(game_id=game.pk)
    assert event.action == Action.RESULT_ENTERED and event.actor == td


def test_without_next_the_save_returns_to_the_game_in_the_grid(web, group, games, td):
    client = web(td)
    response = client.post(url("game-result", group, 3), {"result": "0-1", "version": 0})
    assert response["Location"] == url("group-results", group) + "#game-3"


def test_a_stale_save_shows_the_conflict_and_changes_nothing(web, group, games, td, organizer):
    game = games[0]
    enter_result(organizer, game, "1-0", expected_version=0)
    response = post_result(web(td), group, game, "0-1", 0)
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed meanwhile" in html and "now 1-0" in html and "Reload" in html
    game.refresh_from_db()
    assert (game.result, game.version) == ("1-0", 1)
    # the form now carries the current version, to enter the result again knowingly
    assert 'name="version" value="1"' in html


def test_a_correction_needs_a_reason_and_is_kept_in_the_history(web, group, games, td):
    game = games[0]
    client = web(td)
    post_result(client, group, game, "1-0", 0)
    refused = post_result(client, group, game, "1/2-1/2", 1)
    assert refused.status_code == 400
    assert "Give a reason for correcting a finished game." in refused.content.decode()
    assert Game.objects.get(pk=game.pk).result == "1-0"
    assert post_result(client, group, game, "1/2-1/2", 1, reason="typo").status_code == 302
    page = client.get(url("game-result", group, game.number)).content.decode()
    history = page[page.index("History") :]
    assert "typo" in history and "1-0 → <strong>½-½" in history and "corrected" in history
    results = client.get(url("group-results", group)).content.decode()
    assert "Recent changes" in results and "typo" in results


def test_a_bad_form_is_answered_with_400(web, group, td):
    response = web(td).post(url("game-result", group, 1), {"result": "2-0", "version": 0})
    assert response.status_code == 400
    assert Game.objects.get(group=group, number=1).result == ""


# ---------------------------------------------------------------------------
# Withdrawals
# ---------------------------------------------------------------------------


def test_the_td_withdraws_a_player_and_their_open_games_become_forfeits(
    web, group, games, td, django_capture_on_commit_callbacks
):
    client = web(td)
    first = games[0]
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(td, first, "1-0", expected_version=0)
    code = first.black.code
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("group-withdraw", group), {"entrant": code, "reason": "ill"})
    assert response.status_code == 302
    theirs = Game.objects.filter(group=group).filter(Q(white__code=code) | Q(black__code=code))
    results = {g.pk: (g.result, g.white.code == code) for g in theirs.select_related("white")}
    assert results.pop(first.pk) == ("1-0", False)  # a finished game stays as it was
    assert len(results) == 9
    # every open game is now a forfeit loss for the withdrawn player
    assert all(result == ("-+" if as_white else "+-") for result, as_white in results.values())
    page = client.get(url("group-results", group)).content.decode()
    assert "has withdrawn" in page and "withdrawal of " + code in page
    standings = client.get(url("group-standings", group)).content.decode()
    assert "withdrawn" in standings


def test_a_withdrawal_without_reason_is_refused(web, group, games, td):
    client = web(td)
    response = client.post(url("group-withdraw", group), {"entrant": games[0].white.code})
    assert response.status_code == 302
    assert not StageEntry.objects.filter(withdrawn_at__isnull=False).exists()
    page = client.get(url("group-results", group)).content.decode()
    assert "give the reason" in page


# ---------------------------------------------------------------------------
# The group's TD
# ---------------------------------------------------------------------------


def test_the_organizer_names_the_td_on_the_group_page(web, group, organizer, stranger):
    client = web(organizer)
    page = client.get(group.get_absolute_url()).content.decode()
    assert 'name="username"' in page and 'value="td1"' in page
    response = client.post(url("group-td", group), {"username": "someone"})
    assert response.status_code == 302
    group.refresh_from_db()
    assert group.td == stranger
    event = AuditEvent.objects.get(action=Action.GROUP_TD_ASSIGNED)
    assert event.data == {"old": "td1", "new": "someone"} and event.group_id == group.pk
    # and the new TD may now enter results
    assert web(stranger).get(url("group-results", group)).status_code == 200


def test_an_unknown_username_or_a_non_organizer_changes_no_td(web, group, td, stranger):
    client = web(group.stage.tournament.organizers.first())
    client.post(url("group-td", group), {"username": "nobody"})
    group.refresh_from_db()
    assert group.td == td
    assert "There is no user nobody" in client.get(group.get_absolute_url()).content.decode()
    assert web(td).post(url("group-td", group), {"username": "someone"}).status_code == 403
    group.refresh_from_db()
    assert group.td == td


# ---------------------------------------------------------------------------
# Standings, crosstable, ranking and their files
# ---------------------------------------------------------------------------


@pytest.fixture
def played(group, games, td, django_capture_on_commit_callbacks):
    """Seat 1 wins two White games and draws a third; one game ends by forfeit."""
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(td, games[0], "1-0", expected_version=0)
        enter_result(td, games[1], "1-0", expected_version=0)
        enter_result(td, games[2], "1/2-1/2", expected_version=0)
        enter_result(td, games[10], "+-", expected_version=0)
    return games


def test_standings_show_places_points_and_the_chains_tie_breaks(web, group, played):
    html = web(None).get(url("group-standings", group)).content.decode()
    assert "Provisional: 496 games are still in progress." in html
    assert '<th scope="col" class="num">TS</th>' in html and "TS-Cut1" in html
    first_row = html[html.index("<tbody>") :].split("</tr>")[0]
    assert played[0].white.name in first_row and "<strong>2½</strong>" in first_row
    assert "3 / 10" in first_row


# A crosstable square's result, a link to its game's page.
SYMBOL = r'<a class="sym" href="/t/[\w-]+/s/\d+/g/\d+/games/\d+/">%s</a>'


def test_the_crosstable_shows_results_with_colours_forfeits_and_the_own_row(
    web, group, played, stranger, django_assert_max_num_queries
):
    white = played[0].white
    white.user = stranger
    white.save(update_fields=["user"])
    client = web(stranger)
    with django_assert_max_num_queries(10):
        response = client.get(url("group-crosstable", group))
    html = response.content.decode()
    own = re.search(r'<tr id="seat-1" class="own"[^>]*>(.*?)</tr>', html, re.S)
    assert own, "the signed-in player's row is highlighted"
    assert "xc latest" in own.group(1) and re.search(SYMBOL % "½", own.group(1))
    assert len(re.findall(SYMBOL % r"\+", html)) == 1
    assert len(re.findall(SYMBOL % "−", html)) == 1
    assert "Forfeits</dt><dd>1" in html


def test_the_group_page_links_its_standings_and_the_stage_page_its_ranking(web, group):
    client = web(None)
    page = client.get(group.get_absolute_url()).content.decode()
    assert url("group-standings", group) in page and url("group-crosstable", group) in page
    assert url("group-results", group) not in page
    stage = group.stage
    stage_page = client.get(stage.get_absolute_url()).content.decode()
    assert reverse("stage-ranking", args=[stage.tournament.slug, stage.order]) in stage_page


def test_the_stage_ranking_is_paginated_by_100_and_exported(
    web, stage, played, organizer, django_capture_on_commit_callbacks
):
    client = web(None)
    address = reverse("stage-ranking", args=[stage.tournament.slug, stage.order])
    page = client.get(address).content.decode()
    # Every group has its (empty) standings from the publication on: everyone is ranked.
    assert "Page 1 of 3" in page and "no results yet" not in page
    with django_capture_on_commit_callbacks(execute=True):
        for number in (2, 3):
            game = Game.objects.filter(group__stage=stage, group__number=number).first()
            enter_result(organizer, game, "0-1", expected_version=0)
    first = client.get(address).content.decode()
    assert "Page 1 of 3" in first and first.count("<tr") == 101
    assert "no results yet" not in first
    assert client.get(address + "?page=3").content.decode().count("<tr") == 101
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(
                    reverse("stage-ranking-csv", args=[stage.tournament.slug, 1])
                ).content.decode()
            )
        )
    )
    assert len(rows) == 300 and rows[0]["place"] == "1" and rows[0]["points"] == "2.50"
    assert list(rows[0])[8:10] == ["ts", "ts_cut1"]


def test_group_csv_exports(web, group, played):
    client = web(None)
    response = client.get(url("group-standings-csv", group))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    ranked = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert ranked[0]["points"] == "2.50" and ranked[0]["seat"] == "1"
    lines = list(
        csv.reader(io.StringIO(client.get(url("group-crosstable-csv", group)).content.decode()))
    )
    assert len(lines) == 101


def test_standings_of_an_unpublished_stage_are_hidden_from_the_public(web, group, organizer):
    stage = group.stage
    stage.status = stage.Status.DRAWN
    stage.save(update_fields=["status"])
    for name in ("group-standings", "group-crosstable", "group-trf", "group-standings-csv"):
        assert web(None).get(url(name, group)).status_code == 404
        assert web(organizer).get(url(name, group)).status_code == 200
