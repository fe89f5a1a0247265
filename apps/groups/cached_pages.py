"""Which public pages and read-only API answers are served from cache, and the versions each
is filed under (``apps.core.pagecache``): one query per request, by the address's arguments.

A group's pages show its games and standings (group), the stage's state (stage) and the
tournament's settings (tournament); a stage's pages its state and what is played in its groups
(play: results, standings, the ranking); a tournament's page its stages. The home page lists
every tournament.
"""

from __future__ import annotations

import functools

from django.db import connection

from apps.core import pagecache
from apps.core.models import PageVersion
from apps.core.pagecache import GROUP, PLAY, STAGE, TOURNAMENT
from apps.stages.models import Stage, Tournament

from .models import Group

# One statement per page, written once: the ORM would spend longer building the query (the
# versions are three subqueries) than the database answering it, on every request.


def _version(scope: str, ref: str) -> str:
    table = _name(PageVersion)
    return (
        f"COALESCE((SELECT v.version FROM {table} v"
        f" WHERE v.scope = '{scope}' AND v.object_id = {ref}), 0)"
    )


def _name(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@functools.cache
def _statements() -> dict[str, str]:
    # Each: the ids of what the page shows, then their versions (in the order of SCOPES).
    t, s, g = _name(Tournament), _name(Stage), _name(Group)
    order = connection.ops.quote_name("order")
    of_stage = "s.tournament_id, s.id, s.id, " + ", ".join(
        (_version(TOURNAMENT, "s.tournament_id"), _version(STAGE, "s.id"), _version(PLAY, "s.id"))
    )
    of_group = "s.tournament_id, s.id, g.id, " + ", ".join(
        (_version(TOURNAMENT, "s.tournament_id"), _version(STAGE, "s.id"), _version(GROUP, "g.id"))
    )
    return {
        # Tournament 0: the list of tournaments (every tournament's change moves it).
        "home": f"SELECT 0, {_version(TOURNAMENT, '0')}",
        "tournament": f"SELECT t.id, {_version(TOURNAMENT, 't.id')} FROM {t} t WHERE t.slug = %s",
        "stage": f"SELECT {of_stage} FROM {s} s JOIN {t} t ON t.id = s.tournament_id"
        f" WHERE t.slug = %s AND s.{order} = %s",
        "stage_by_id": f"SELECT {of_stage} FROM {s} s WHERE s.id = %s",
        "group": f"SELECT {of_group} FROM {g} g JOIN {s} s ON s.id = g.stage_id"
        f" JOIN {t} t ON t.id = s.tournament_id"
        f" WHERE t.slug = %s AND s.{order} = %s AND g.number = %s",
        "group_by_id": f"SELECT {of_group} FROM {g} g JOIN {s} s ON s.id = g.stage_id"
        " WHERE g.id = %s",
    }


SCOPES = {
    "home": (TOURNAMENT,),
    "tournament": (TOURNAMENT,),
    "stage": (TOURNAMENT, STAGE, PLAY),
    "stage_by_id": (TOURNAMENT, STAGE, PLAY),
    "group": (TOURNAMENT, STAGE, GROUP),
    "group_by_id": (TOURNAMENT, STAGE, GROUP),
}


def _first(statement: str, *params) -> pagecache.Versions | None:
    with connection.cursor() as cursor:
        cursor.execute(_statements()[statement], params)
        row = cursor.fetchone()
    if row is None:
        return None
    scopes = SCOPES[statement]
    n = len(scopes)
    return tuple(
        (str(scope), int(pk), int(v)) for scope, pk, v in zip(scopes, row[:n], row[n:], strict=True)
    )


def home() -> pagecache.Versions | None:
    return _first("home")


def tournament(slug: str) -> pagecache.Versions | None:
    return _first("tournament", slug)


def stage(slug: str, order: int) -> pagecache.Versions | None:
    return _first("stage", slug, order)


def stage_by_id(pk: int) -> pagecache.Versions | None:
    return _first("stage_by_id", pk)


def group(
    slug: str,
    order: int,
    number: int,
    game_number: int | None = None,
    round_number: int | None = None,
):
    return _first("group", slug, order, number)


def group_by_id(pk: str, round_number: int | None = None) -> pagecache.Versions | None:
    # The router's id: at most 18 digits (apps.core.converters.ID_REGEX), like every number
    # in an address, so it fits the database's integers.
    return _first("group_by_id", int(pk))


PAGES: dict[str, pagecache.Resolver] = {
    "home": home,
    "tournament": tournament,
    "stage": stage,
    "stage-ranking": stage,
    "group": group,
    "group-standings": group,
    "group-crosstable": group,
    "group-standings-csv": group,
    "group-crosstable-csv": group,
    "group-trf": group,
    "game": group,
    "group-round": group,
}
API: dict[str, pagecache.Resolver] = {
    "api-group-detail": group_by_id,
    "api-group-games": group_by_id,
    "api-group-standings": group_by_id,
    "api-group-crosstable": group_by_id,
    "api-group-round": group_by_id,
    "api-stage-ranking": stage_by_id,
}
# The query parameters each reads (any other: answered by the view, not stored).
PAGED = ("page",)
API_PAGED = ("page", "page_size", "format")


def register() -> None:
    for name, resolver in PAGES.items():
        pagecache.register(name, resolver, params=PAGED)
    for name, resolver in API.items():
        pagecache.register(name, resolver, api=True, params=API_PAGED)
