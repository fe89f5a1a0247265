"""Public pages from cache: a crowd of anonymous readers costs one small query per page.

A public page (or read-only API answer) is registered here by its URL name with a *resolver*
(``register``): given the URL's arguments it answers, in one query, the versions of what the
page shows — its tournament, stage and group (``PageVersion``) — or None when the address
names nothing (the view then answers as usual). The middleware files each answer under the
address, the reader's language and those versions; a later anonymous GET of the same address
with the same versions gets the stored copy without reaching the view.

Invalidation is by version, never by deleting: every audit event bumps the versions of what it
names (``event_scopes``: a group's event its group and its stage's play, a stage's event the
stage and its tournament, a tournament's event the tournament), the standings recompute its
group and the ranking store its stage's play. A group's pages are filed under the versions of
the tournament, the stage and the group; a stage's pages under the tournament, the stage and
its play — so a result retires its own group's pages and the stage's, not the other groups'.
Bumps happen after the change commits (``on_commit``), so no writer holds a lock for them; a
reader that rendered the old data files it under the old number, which nobody asks for again.
The copies also expire after ``PAGE_CACHE_SECONDS`` (texts such as "3 days left" and the rare
change that writes no event, e.g. an account's display name).

Only anonymous readers are served from the cache: a request with a session, a pending message
or an ``Authorization`` header goes to the view (a signed-in reader sees their own links).
Only complete 200 answers that set no cookie are stored. A copy is kept gzip-compressed in the
memory of each web process (the ``pages`` cache: the versions live in the database, so each
process's copies are right on their own) and sent compressed to clients that accept gzip.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.template.response import SimpleTemplateResponse
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers

from .models import PageVersion

Scope = tuple[str, int]  # (PageVersion.Scope value, object id)
Resolver = Callable[..., Sequence[int] | None]

TOURNAMENT: str = PageVersion.Scope.TOURNAMENT
STAGE: str = PageVersion.Scope.STAGE
PLAY: str = PageVersion.Scope.PLAY
GROUP: str = PageVersion.Scope.GROUP
ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as GZipMiddleware reads Accept-Encoding
CACHE_ALIAS = "pages"


# ---------------------------------------------------------------------------
# Versions
# ---------------------------------------------------------------------------


def bump(scopes: Iterable[Scope]) -> None:
    """Retire the cached pages of ``scopes`` once the current transaction commits (at once
    outside one)."""
    wanted = sorted({(str(kind), int(pk)) for kind, pk in scopes if pk is not None})
    if wanted:
        after_commit(wanted)


def after_commit(scopes: list[Scope]) -> None:
    # robust: a bump that fails is logged, not raised into the action that committed (its
    # pages then live out PAGE_CACHE_SECONDS).
    transaction.on_commit(lambda: bump_now(scopes), robust=True)


def bump_now(scopes: Sequence[Scope]) -> None:
    """Add one to each version (creating it at 1): one statement, in the sorted order, so two
    bumps of the same versions never wait on each other crosswise."""
    wanted = sorted(set(scopes))
    if not wanted:
        return
    table = connection.ops.quote_name(PageVersion._meta.db_table)
    rows = ", ".join(["(%s, %s, 1)"] * len(wanted))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (scope, object_id, version) VALUES {rows} "
            f"ON CONFLICT (scope, object_id) DO UPDATE SET version = {table}.version + 1",
            [value for scope in wanted for value in scope],
        )


def event_scopes(tournament_id, stage_id, group_id) -> list[Scope]:
    """What an audit event's change can show on: see the module's docstring."""
    if group_id is not None:
        return [(GROUP, group_id), (PLAY, stage_id)]
    if stage_id is not None:
        return [(STAGE, stage_id), (TOURNAMENT, tournament_id)]
    return [(TOURNAMENT, tournament_id)]


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    resolver: Resolver
    api: bool
    params: frozenset[str]


_PAGES: dict[str, Page] = {}


def register(
    url_name: str, resolver: Resolver, *, api: bool = False, params: Iterable[str] = ()
) -> None:
    """Serve the page named ``url_name`` from cache, filed under ``resolver(**url_kwargs)``.

    ``api`` answers are also told apart by the ``Accept`` header (DRF picks the format).
    ``params`` are the query parameters the page reads (e.g. ``page``): an address with any
    other is answered by the view and not stored, so made-up parameters cannot fill the
    cache with copies of one page."""
    _PAGES[url_name] = Page(resolver, api, frozenset(params))


def registered() -> dict[str, Page]:
    return dict(_PAGES)


# ---------------------------------------------------------------------------
# Stored copies
# ---------------------------------------------------------------------------

# Headers a stored copy keeps (the others are per response or added by the middleware
# above this one on every answer).
_SKIPPED_HEADERS = {"content-length", "content-encoding", "set-cookie", "etag"}


@dataclass(frozen=True)
class Copy:
    headers: tuple[tuple[str, str], ...]
    body_gzip: bytes
    etag: str

    @classmethod
    def of(cls, response: HttpResponse) -> Copy:
        body = response.content
        headers = tuple((k, v) for k, v in response.items() if k.lower() not in _SKIPPED_HEADERS)
        digest = hashlib.sha256(body).hexdigest()[:32]
        return cls(headers, gzip.compress(body, compresslevel=6, mtime=0), f'W/"{digest}"')

    def response(self, request: HttpRequest) -> HttpResponse:
        if self.etag in request.META.get("HTTP_IF_NONE_MATCH", ""):
            answer: HttpResponse = HttpResponseNotModified()
        elif ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            answer = HttpResponse(self.body_gzip)
            answer["Content-Encoding"] = "gzip"  # GZipMiddleware leaves it as it is
        else:
            answer = HttpResponse(gzip.decompress(self.body_gzip))
        for name, value in self.headers:
            answer[name] = value
        answer["Content-Length"] = str(len(answer.content))
        answer["ETag"] = self.etag
        patch_vary_headers(answer, ("Accept-Encoding",))
        answer["X-Cache"] = "hit"
        return answer


def _anonymous(request: HttpRequest) -> bool:
    cookies = request.COOKIES
    return not (
        settings.SESSION_COOKIE_NAME in cookies
        or getattr(settings, "MESSAGE_COOKIE_NAME", "messages") in cookies
        or "HTTP_AUTHORIZATION" in request.META
    )


def _storable(response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not response.has_header("Content-Encoding")
        and "private" not in response.get("Cache-Control", "")
        and "no-store" not in response.get("Cache-Control", "")
    )


class PublicPageCacheMiddleware:
    """Answers an anonymous GET of a registered page from its stored copy (see above).

    Placed below GZipMiddleware (a copy goes out compressed already, which it leaves alone)
    and above the session, locale and authentication middleware, which a hit skips."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = self.key(request)
        if key is None:
            return self.get_response(request)
        pages = caches[CACHE_ALIAS]
        copy = pages.get(key)
        if copy is not None:
            return copy.response(request)
        response = self.get_response(request)
        if _storable(response):
            if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
                response.add_post_render_callback(lambda r: self._store(pages, key, r))
            else:
                self._store(pages, key, response)
        return response

    @staticmethod
    def _store(pages, key: str, response: HttpResponse) -> None:
        pages.set(key, Copy.of(response), settings.PAGE_CACHE_SECONDS)
        response["X-Cache"] = "miss"

    @staticmethod
    def key(request: HttpRequest) -> str | None:
        """The copy's key, or None when the request is not one to serve from cache."""
        if request.method != "GET" or not settings.PAGE_CACHE_SECONDS or not _anonymous(request):
            return None
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return None
        page = _PAGES.get(match.url_name or "")
        if page is None or not page.params.issuperset(request.GET):
            return None
        versions = page.resolver(**match.kwargs)
        if versions is None:
            return None
        language = translation.get_language_from_request(request)
        accept = request.META.get("HTTP_ACCEPT", "") if page.api else ""
        address = hashlib.sha256(
            f"{request.get_full_path()}\n{accept}".encode(errors="replace")
        ).hexdigest()[:40]
        numbers = ".".join(str(v) for v in versions)
        return f"page:{match.url_name}:{language}:{numbers}:{address}"
