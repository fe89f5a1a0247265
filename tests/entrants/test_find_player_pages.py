"""Find a player, page by page: FIND_PER_PAGE entries a page in the search's order (stage, name,
code), the shared pager (templates/_pager.html) keeping the query, and page numbers handled as
on the stage page (Django's ``Paginator.get_page``: not a number gives the first page, past the
end the last)."""

import html
import re
from dataclasses import replace

import pytest
from django.urls import reverse

from apps.entrants.services import close_registration, import_entrants
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.standings import views
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

MATCHING = 120
FIND_PER_PAGE = 50  # this file's page size (the site's may differ): 120 make pages of 50, 50, 20


@pytest.fixture(autouse=True)
def fifty_a_page(monkeypatch):
    monkeypatch.setattr(views, "FIND_PER_PAGE", FIND_PER_PAGE)


# Every matching name holds it; none of the synthetic names does (their parts are fixed).
QUERY = "pagewell"
CODE = re.compile(r'<h2>[^<]*<small class="muted">([^<]+)</small></h2>')


def matching_name(i: int) -> str:
    """60 different names, each twice: name order is not code order, and ties go by code."""
    return f"Pagewell {(i * 7) % 60:03d}, Anna"


@pytest.fixture
def entrants():
    synthetic = make_entrants(300, "web")
    return [
        replace(e, name=matching_name(i)) if i < MATCHING else e for i, e in enumerate(synthetic)
    ]


@pytest.fixture
def paged_stage(cup, organizer, entrants, django_capture_on_commit_callbacks):
    """The web cup's first stage, drawn and published, with MATCHING entrants named Pagewell."""
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(entrants))
    close_registration(organizer, stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, stage, "web seed")
    stage.refresh_from_db()
    publish_draw(organizer, stage)
    stage.refresh_from_db()
    return stage


@pytest.fixture
def expected(entrants) -> list[str]:
    """The matching codes in the page's order (one stage: name, then code)."""
    found = sorted(entrants[:MATCHING], key=lambda e: (e.name, e.code))
    return [e.code for e in found]


def find(client, stage, **params) -> str:
    response = client.get(reverse("find-player", args=[stage.tournament.slug]), params)
    assert response.status_code == 200
    return response.content.decode()


def pager(page: str) -> str:
    found = re.search(r'<nav class="pager".*?</nav>', page, re.S)
    return found[0] if found else ""


def test_the_order_of_the_test_data_is_not_that_of_the_codes(expected):
    assert len(expected) == MATCHING
    assert expected != sorted(expected)


def test_120_matching_seats_make_three_pages(client, paged_stage, expected):
    pages = [find(client, paged_stage, q=QUERY, page=n) for n in (1, 2, 3)]
    shown = [CODE.findall(page) for page in pages]
    assert [len(codes) for codes in shown] == [FIND_PER_PAGE, FIND_PER_PAGE, 20]
    assert shown[0] + shown[1] + shown[2] == expected
    for number, page in enumerate(pages, start=1):
        assert "120 entries found." in page
        assert f"Page {number} of 3" in pager(page)
    assert "1–50 of 120" in pager(pages[0])
    assert "101–120 of 120" in pager(pages[2])
    assert 'rel="prev"' not in pages[0] and 'rel="next"' in pages[0]
    assert 'rel="prev"' in pages[2] and 'rel="next"' not in pages[2]


def test_page_two_shows_the_51st_to_the_100th_in_order(
    client, paged_stage, expected, django_assert_max_num_queries
):
    url = reverse("find-player", args=[paged_stage.tournament.slug])
    # The tournament, the count, the page's seats, their games and their opponents, the
    # games' results and the entries' standings.
    with django_assert_max_num_queries(7):
        page = client.get(url, {"q": QUERY, "page": 2}).content.decode()
    assert CODE.findall(page) == expected[50:100]
    assert "51–100 of 120" in pager(page)


def test_the_pager_links_keep_the_query(client, paged_stage, expected):
    query = "Pagewell 0"  # a space and capitals: every matching name holds it
    page = find(client, paged_stage, q=query, page=2)
    links = {
        rel: html.unescape(href)
        for href, rel in re.findall(r'<a href="([^"]+)" rel="(prev|next)">', pager(page))
    }
    assert links == {"prev": "?page=1&q=Pagewell%200", "next": "?page=3&q=Pagewell%200"}
    url = reverse("find-player", args=[paged_stage.tournament.slug])
    following = client.get(url + links["next"]).content.decode()
    assert CODE.findall(following) == expected[100:]
    assert f'name="q" value="{query}"' in following


@pytest.mark.parametrize("number", ["abc", "", "2.5", "-", "1e3"])
def test_a_page_number_that_is_not_a_number_gives_the_first_page(
    client, paged_stage, expected, number
):
    page = find(client, paged_stage, q=QUERY, page=number)
    assert CODE.findall(page) == expected[:FIND_PER_PAGE]
    assert "Page 1 of 3" in pager(page)


@pytest.mark.parametrize("number", ["4", "99", "1000000000000", "0", "-1"])
def test_a_page_number_out_of_range_gives_the_last_page(client, paged_stage, expected, number):
    page = find(client, paged_stage, q=QUERY, page=number)
    assert CODE.findall(page) == expected[100:]
    assert "Page 3 of 3" in pager(page)


def test_a_single_page_of_results_has_no_pager(client, paged_stage, expected):
    page = find(client, paged_stage, q=expected[0])
    assert CODE.findall(page) == [expected[0]]
    assert "1 entry found." in page
    assert pager(page) == ""


def test_no_match_on_a_later_page_still_says_nobody_was_found(client, paged_stage):
    page = find(client, paged_stage, q="zzqx", page=3)
    assert "No player named" in page
    assert pager(page) == ""


def test_the_api_search_is_unchanged(client, paged_stage, expected):
    """/api/players/ keeps its own order (name, code, stage) and its own pagination."""
    body = client.get("/api/players/", {"q": QUERY, "page_size": 500}).json()
    assert body["count"] == MATCHING
    assert [p["code"] for p in body["results"]] == expected
