"""Find a player: the same entrants in the same order as the plain filter, and on PostgreSQL
the indexes of apps/entrants/migrations/0003_search_indexes.py serve the search."""

import re

import pytest
from django.db import connection
from django.db.models import Q
from django.urls import reverse

from apps.entrants.models import Entrant
from apps.groups.models import Seat
from apps.groups.services import player_search
from apps.stages.models import Stage
from apps.standings.views import FIND_PER_PAGE
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

ORDER = ("stage__order", "entrant__name", "entrant__code")
INDEXES = {"entrant_name_upper_trgm", "entrant_code_upper_pattern"}


def expected_codes(stage: Stage, query: str, order=ORDER) -> list[str]:
    """The entrants the search must find, chosen in Python (name contains the query or the
    code is the query, ignoring case), in the database's order of the page."""
    q = query.upper()
    seats = Seat.objects.filter(stage=stage).select_related("entrant")
    ids = [s.pk for s in seats if q in s.entrant.name.upper() or q == s.entrant.code.upper()]
    ordered = Seat.objects.filter(pk__in=ids).order_by(*order)
    return list(ordered.values_list("entrant__code", flat=True))


def queries(stage: Stage) -> list[str]:
    entrant = Seat.objects.filter(stage=stage).select_related("entrant").last().entrant
    surname = entrant.name.split(",")[0]
    return [
        entrant.code,  # the exact code
        entrant.code.lower(),  # in any case
        entrant.code[:4],  # a code's beginning is no match (but a name may hold it)
        surname.upper(),
        surname[1:4].lower(),  # part of a name
        "an",  # two letters: more than a page of them
        "zzqx",  # nobody
    ]


def test_the_page_finds_the_same_entrants_in_the_same_order(client, published_stage):
    url = reverse("find-player", args=[published_stage.tournament.slug])
    for query in queries(published_stage):
        page = client.get(url, {"q": query}).content.decode()
        shown = re.findall(r'<h2>[^<]*<small class="muted">([^<]+)</small></h2>', page)
        expected = expected_codes(published_stage, query)
        assert shown == expected[:FIND_PER_PAGE], query
        # More than a page: the rest are on the next pages
        # (tests/entrants/test_find_player_pages.py).
        assert ('rel="next"' in page) == (len(expected) > FIND_PER_PAGE), query


def test_the_api_finds_the_same_entrants_in_the_same_order(client, published_stage):
    order = ("entrant__name", "entrant__code", "stage__order")
    for query in queries(published_stage):
        body = client.get("/api/players/", {"q": query, "page_size": 500}).json()
        expected = expected_codes(published_stage, query, order)
        assert [p["code"] for p in body["results"]] == expected, query
        assert body["count"] == len(expected), query


def _plan(sql: str, params) -> str:
    with connection.cursor() as cursor:
        # The test tables are small enough for a scan to be cheapest. With scans ruled out
        # (those of a whole table or of a whole index), only bitmaps of indexes whose
        # expressions match the conditions are left.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")
        cursor.execute("RESET enable_indexscan")
    return plan


@pytest.mark.postgres
def test_postgresql_has_the_search_indexes(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'entrants_entrant'")
        names = {row[0] for row in cursor.fetchall()}
    assert names >= INDEXES


@pytest.mark.postgres
@pytest.mark.parametrize("query", ["E000123", "e000123", "berni", "Anna"])
def test_the_search_can_be_answered_from_the_indexes_on_postgresql(published_stage, query):
    """The search's conditions on the entrant, as Django writes them, match the indexes'
    expressions: with scans ruled out, both sides of the OR come from an index."""
    search = player_search(query)
    on_entrant = Q(
        *[(lookup.removeprefix("entrant__"), value) for lookup, value in search.children],
        _connector=search.connector,
    )
    found = Entrant.objects.filter(on_entrant).order_by().values("pk")
    sql, params = found.query.sql_with_params()
    plan = _plan(sql, params)
    assert all(index in plan for index in INDEXES), plan
    assert "Seq Scan" not in plan, plan


def test_other_databases_get_no_postgresql_index(db):
    """The migration runs everywhere; only PostgreSQL gets the indexes."""
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL has them (test above)")
    with connection.cursor() as cursor:
        names = {
            index
            for index, info in connection.introspection.get_constraints(
                cursor, "entrants_entrant"
            ).items()
            if info["index"]
        }
    assert not names & INDEXES
