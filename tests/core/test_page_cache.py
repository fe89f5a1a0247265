"""Public pages from cache (apps/core/pagecache.py): anonymous readers get stored copies,
filed under the versions of what the page shows; every change retires them."""

import gzip

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import get_resolver, reverse

from apps.core import pagecache
from apps.core.models import PageVersion
from apps.groups.models import Game, Group
from apps.results.services import enter_result
from apps.standings.groups import recompute_group
from apps.standings.ranking import rebuild_ranking
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db


def url(stage, name="stage", *args):
    return reverse(name, args=[stage.tournament.slug, stage.order, *args])


def version(scope, pk) -> int:
    found = PageVersion.objects.filter(scope=scope, object_id=pk).first()
    return found.version if found else 0


def public_urls(stage) -> dict[str, str]:
    group = stage.groups.get(number=1)
    game = group.games.order_by("number").first()
    return {
        "home": reverse("home"),
        "tournament": reverse("tournament", args=[stage.tournament.slug]),
        "stage": url(stage),
        "stage-ranking": url(stage, "stage-ranking"),
        "group": url(stage, "group", 1),
        "group-standings": url(stage, "group-standings", 1),
        "group-crosstable": url(stage, "group-crosstable", 1),
        "game": url(stage, "game", 1, game.number),
        "api-group-detail": f"/api/groups/{group.pk}/",
        "api-group-games": f"/api/groups/{group.pk}/games/",
        "api-group-standings": f"/api/groups/{group.pk}/standings/",
        "api-group-crosstable": f"/api/groups/{group.pk}/crosstable/",
        "api-stage-ranking": f"/api/stages/{stage.pk}/ranking/",
    }


def test_every_registered_name_is_a_route():
    names = {n for n in get_resolver().reverse_dict if isinstance(n, str)}
    assert set(pagecache.registered()) <= names


def test_each_public_page_is_stored_for_anonymous_readers_and_sets_no_cookie(
    client, published_stage
):
    for name, address in public_urls(published_stage).items():
        first = client.get(address)
        assert first.status_code == 200, name
        assert not first.cookies, name  # the same page for every anonymous reader
        assert first["X-Cache"] == "miss", name
        second = client.get(address)
        assert second["X-Cache"] == "hit", name
        assert second.content == first.content, name
        assert second["Content-Type"] == first["Content-Type"], name


def test_a_hit_costs_one_query_and_skips_the_view(client, published_stage):
    address = url(published_stage, "group-crosstable", 1)
    client.get(address)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(address)["X-Cache"] == "hit"
    assert len(queries) == 1


def test_a_hit_goes_compressed_to_clients_that_accept_gzip_and_answers_304_to_its_etag(
    client, published_stage
):
    address = url(published_stage, "group", 1)
    plain = client.get(address).content
    packed = client.get(address, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain
    assert int(packed["Content-Length"]) == len(packed.content)
    assert "Accept-Encoding" in packed["Vary"]
    again = client.get(address, HTTP_IF_NONE_MATCH=packed["ETag"])
    assert again.status_code == 304
    assert client.get(address, HTTP_IF_NONE_MATCH='W/"other"').status_code == 200


def test_a_result_retires_its_groups_pages_and_the_stage_page_not_the_others(
    client, organizer, published_stage
):
    group = published_stage.groups.get(number=1)
    other = url(published_stage, "group", 2)
    tournament = reverse("tournament", args=[published_stage.tournament.slug])
    pages = [url(published_stage, "group-crosstable", 1), url(published_stage), other, tournament]
    for address in pages:
        client.get(address)
    game = Game.objects.filter(group=group).order_by("number").first()
    enter_result(organizer, game, "1-0", expected_version=game.version)
    crosstable = client.get(pages[0])
    assert crosstable["X-Cache"] == "miss"
    assert client.get(pages[1])["X-Cache"] == "miss"
    assert client.get(other)["X-Cache"] == "hit"
    assert client.get(tournament)["X-Cache"] == "hit"
    assert client.get(pages[0])["X-Cache"] == "hit"


def test_the_recompute_and_the_ranking_store_bump_their_versions(organizer, published_stage):
    group = published_stage.groups.get(number=1)

    before = version("g", group.pk), version("p", published_stage.pk)
    recompute_group(group.pk)
    assert version("g", group.pk) == before[0] + 1
    rebuild_ranking(published_stage.pk, wait_for_groups=False)
    assert version("p", published_stage.pk) > before[1]


def test_signed_in_readers_and_api_tokens_are_never_served_a_copy(
    client, organizer, published_stage
):
    address = url(published_stage, "group", 1)
    client.get(address)
    assert client.get(address)["X-Cache"] == "hit"
    client.force_login(organizer)
    signed_in = client.get(address)
    assert "X-Cache" not in signed_in
    client.logout()
    group = Group.objects.get(stage=published_stage, number=1)
    api = f"/api/groups/{group.pk}/"
    client.get(api)
    assert "X-Cache" not in client.get(api, HTTP_AUTHORIZATION="Token nonsense")


def test_a_page_the_public_may_not_see_is_never_stored(client, drawn_stage):
    address = url(drawn_stage, "group", 1)
    assert client.get(address).status_code == 404
    assert client.get(address).status_code == 404
    assert "X-Cache" not in client.get(address)


def test_languages_and_api_formats_get_copies_of_their_own(client, published_stage):
    address = url(published_stage, "group", 1)
    english = client.get(address, HTTP_ACCEPT_LANGUAGE="en")
    italian = client.get(address, HTTP_ACCEPT_LANGUAGE="it")
    assert italian["X-Cache"] == "miss"
    assert italian["Content-Language"] == "it" and english["Content-Language"] == "en"
    group = Group.objects.get(stage=published_stage, number=1)
    api = f"/api/groups/{group.pk}/"
    data = client.get(api, HTTP_ACCEPT="application/json")
    assert client.get(api, HTTP_ACCEPT="application/json")["X-Cache"] == "hit"
    browsable = client.get(api, HTTP_ACCEPT="text/html")
    assert browsable.get("X-Cache") != "hit"
    assert browsable["Content-Type"] != data["Content-Type"]


def test_an_address_naming_nothing_is_not_stored(client, published_stage):
    assert client.get("/api/groups/abc/").status_code == 404
    assert client.get("/api/groups/999999/").status_code == 404
    assert "X-Cache" not in client.get("/api/groups/999999/")


@pytest.mark.page_bumps_on_commit
@pytest.mark.django_db(transaction=True)
def test_versions_move_when_the_change_commits_not_before(client, organizer, published_stage):
    group = published_stage.groups.get(number=1)
    address = url(published_stage, "group-crosstable", 1)
    client.get(address)
    game = Game.objects.filter(group=group).order_by("number").first()
    before = version("g", group.pk)
    with transaction.atomic():
        enter_result(organizer, game, "0-1", expected_version=game.version)
        # Not committed yet: readers keep the copy of what is committed.
        assert version("g", group.pk) == before
    assert version("g", group.pk) > before
    assert client.get(address)["X-Cache"] == "miss"
    assert client.get(address)["X-Cache"] == "hit"


@pytest.mark.page_bumps_on_commit
@pytest.mark.django_db(transaction=True)
def test_a_change_rolled_back_moves_no_version(organizer, published_stage):
    group = published_stage.groups.get(number=1)
    game = Game.objects.filter(group=group).order_by("number").first()
    before = version("g", group.pk), version("p", published_stage.pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        enter_result(organizer, game, "0-1", expected_version=game.version)
        raise RuntimeError("rolled back")
    assert (version("g", group.pk), version("p", published_stage.pk)) == before


def test_the_page_cache_can_be_turned_off(client, settings, published_stage):
    settings.PAGE_CACHE_SECONDS = 0
    address = url(published_stage, "group", 1)
    client.get(address)
    assert "X-Cache" not in client.get(address)


def test_only_the_parameters_a_page_reads_make_copies(client, published_stage):
    ranking = url(published_stage, "stage-ranking")
    client.get(ranking, {"page": 2})
    assert client.get(ranking, {"page": 2})["X-Cache"] == "hit"
    # Made-up parameters are answered by the view and never stored.
    for n in range(3):
        answer = client.get(ranking, {"page": 2, "x": n})
        assert answer.status_code == 200 and "X-Cache" not in answer


@pytest.mark.page_bumps_on_commit
@pytest.mark.django_db(transaction=True)
def test_a_bump_that_fails_does_not_fail_the_change_that_committed(
    organizer, published_stage, monkeypatch
):
    def broken(scopes):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(pagecache, "bump_now", broken)
    game = Game.objects.filter(group__stage=published_stage).order_by("pk").first()
    enter_result(organizer, game, "1-0", expected_version=game.version)
    game.refresh_from_db()
    assert game.result == "1-0"
