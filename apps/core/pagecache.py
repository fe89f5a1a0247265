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

Where the copies are kept: with ``CACHE_URL`` in Redis, shared by the web processes, beside
the versions (``SharedStore``): a hit is then one round trip to Redis and none to the
database, and after a change one process renders the page again while the others are sent
the copy they had; each process also keeps the copies it served (``KeptCopies``), to put
back into a cleared cache instead of rendering them again. Without ``CACHE_URL``: in each
process's memory under keys that hold the versions read from the database (one small query a
request).

Only anonymous readers are served from the cache: a request with a session, a pending message
or an ``Authorization`` header goes to the view (a signed-in reader sees their own links).
Only complete 200 answers that set no cookie are stored. A copy is kept gzip-compressed and
sent compressed to clients that accept gzip.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import logging
import pickle
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.template.response import SimpleTemplateResponse
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers
from redis.exceptions import NoScriptError, RedisError

from .models import PageVersion

logger = logging.getLogger(__name__)

Scope = tuple[str, int]  # (PageVersion.Scope value, object id)
# What a page shows, each with its version: (PageVersion.Scope value, object id, version).
Versions = tuple[tuple[str, int, int], ...]
Resolver = Callable[..., Versions | None]

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
    bumps of the same versions never wait on each other crosswise. A tournament's bump also
    moves tournament 0, the list of tournaments (the home page). The new versions go to the
    shared store too, if the copies are kept in one."""
    statement = bump_statement(scopes)
    if statement is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(*statement)
        bumped(cursor.fetchall())


def bump_statement(scopes: Iterable[Scope]) -> tuple[str, list[Any]] | None:
    """The statement of :func:`bump_now` (None: nothing to bump), for a caller that sends it
    right after its own commit, in the same message (a standings recompute); its rows go to
    :func:`bumped`."""
    wanted = sorted({(str(kind), int(pk)) for kind, pk in scopes})
    if not wanted:
        return None
    if any(kind == TOURNAMENT for kind, _ in wanted):
        wanted = sorted({*wanted, (TOURNAMENT, 0)})
    table = connection.ops.quote_name(PageVersion._meta.db_table)
    rows = ", ".join(["(%s, %s, 1)"] * len(wanted))
    return (
        f"INSERT INTO {table} (scope, object_id, version) VALUES {rows} "
        f"ON CONFLICT (scope, object_id) DO UPDATE SET version = {table}.version + 1"
        " RETURNING scope, object_id, version",
        [value for scope in wanted for value in scope],
    )


def bumped(rows: Iterable[Sequence[Any]]) -> None:
    """After :func:`bump_statement` ran: its new versions to the shared store, if the copies
    are kept in one."""
    versions = tuple((str(s), int(pk), int(v)) for s, pk, v in rows)
    shared = SharedStore.of(caches[CACHE_ALIAS])
    if shared is not None:
        shared.raise_versions(versions)


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
    # The versions it was rendered under (kept with it in the shared store).
    versions: Versions = ()

    @classmethod
    def of(cls, response: HttpResponse, versions: Versions = ()) -> Copy:
        body = response.content
        headers = tuple((k, v) for k, v in response.items() if k.lower() not in _SKIPPED_HEADERS)
        digest = hashlib.sha256(body).hexdigest()[:32]
        return cls(
            headers, gzip.compress(body, compresslevel=6, mtime=0), f'W/"{digest}"', versions
        )

    def dumps(self) -> bytes:
        """For the shared store: the versions at the head, where its lookup script reads
        them (``scope:id=version,...|``), then the copy."""
        head = ",".join(f"{scope}:{pk}={version}" for scope, pk, version in self.versions)
        return head.encode() + b"|" + pickle.dumps(self, pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def loads(data: bytes) -> Copy:
        return pickle.loads(data.partition(b"|")[2])

    def response(self, request: HttpRequest, label: str = "hit") -> HttpResponse:
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
        answer["X-Cache"] = label
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
        found = self.address(request)
        if found is None:
            return self.get_response(request)
        shared = SharedStore.of(caches[CACHE_ALIAS])
        if shared is None:
            return self._local(request, *found)
        return self._shared(shared, request, *found)

    # -- in each process's memory: versions from the database, in the key ------------------

    def _local(self, request: HttpRequest, address: str, page: Page, kwargs) -> HttpResponse:
        versions = page.resolver(**kwargs)
        if versions is None:
            return self.get_response(request)
        key = f"{address}:{'.'.join(str(v) for _, _, v in versions)}"
        pages = caches[CACHE_ALIAS]
        copy = pages.get(key)
        if copy is not None:
            return copy.response(request)
        response = self.get_response(request)
        self._when_rendered(response, lambda r: pages.set(key, Copy.of(r), _seconds()))
        return response

    # -- shared (Redis): versions beside the copies, a hit in one round trip ----------------

    def _shared(self, store: SharedStore, request, address: str, page: Page, kwargs):
        token = secrets.token_hex(8)
        try:
            state, found = store.lookup(address, token)
        except RedisError:
            logger.warning("Page cache unreachable: %s answered by its view.", address)
            return self.get_response(request)
        if state == FRESH:
            KEPT.keep(address, found)  # type: ignore[arg-type]
            return found.response(request)  # type: ignore[union-attr]
        if state == STALE:  # another process renders it: the copy before the change meanwhile
            return found.response(request, "stale")  # type: ignore[union-attr]
        kept = KEPT.get(address)
        if state == MISSING:  # another process renders it (or checks the copy it kept)
            if kept is not None:  # the cache was cleared: this process's copy meanwhile
                return kept.response(request, "stale")
            found = store.wait(address)  # none here either: wait for its copy, a while
            if found is not None:
                KEPT.keep(address, found)
                return found.response(request)
        # This process renders (it holds the page's lock, or waited in vain).
        versions = page.resolver(**kwargs)
        if versions is None:  # the address names nothing (any more): no copy of it stays
            KEPT.drop(address)
            store.finish(address, token, drop=True)
            return self.get_response(request)
        if found is not None and found.versions == versions:
            # The copy was right: what the cache lost were the versions (evicted, flushed).
            store.finish(address, token, versions)
            return found.response(request)
        if kept is not None and kept.versions == versions:
            # The cache lost the copy (flushed, restarted, evicted) but this process kept
            # one, still right: it goes back to the cache instead of a render.
            store.finish(address, token, versions, kept)
            return kept.response(request, "restored")
        try:
            response = self.get_response(request)
        except BaseException:
            store.finish(address, token)
            raise

        def stored(r: HttpResponse) -> None:
            copy = Copy.of(r, versions)
            KEPT.keep(address, copy)
            store.finish(address, token, versions, copy)

        if not self._when_rendered(response, stored):
            # Not for the public (any more), or gone: the copy goes too. An error keeps it.
            gone = response.status_code in (403, 404, 410)
            if gone:
                KEPT.drop(address)
            store.finish(address, token, versions, drop=gone)
        return response

    @staticmethod
    def _when_rendered(response: HttpResponse, store: Callable[[HttpResponse], None]) -> bool:
        """Store the response once rendered if it may be stored; whether it will be."""
        if not _storable(response):
            return False

        def stored(r: HttpResponse) -> None:
            store(r)
            r["X-Cache"] = "miss"

        if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
            response.add_post_render_callback(stored)
        else:
            stored(response)
        return True

    @staticmethod
    def address(request: HttpRequest) -> tuple[str, Page, dict] | None:
        """The address's key (page, language, path and, for the API, the format asked for),
        its page and the URL's arguments; None when the request is not one to serve from
        cache."""
        if request.method != "GET" or not settings.PAGE_CACHE_SECONDS or not _anonymous(request):
            return None
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return None
        page = _PAGES.get(match.url_name or "")
        if page is None or not page.params.issuperset(request.GET):
            return None
        language = translation.get_language_from_request(request)
        accept = request.META.get("HTTP_ACCEPT", "") if page.api else ""
        digest = hashlib.sha256(
            f"{request.get_full_path()}\n{accept}".encode(errors="replace")
        ).hexdigest()[:40]
        return f"page:{match.url_name}:{language}:{digest}", page, match.kwargs


def _seconds() -> int:
    return settings.PAGE_CACHE_SECONDS


# ---------------------------------------------------------------------------
# What each process keeps (with the shared store)
# ---------------------------------------------------------------------------


class KeptCopies:
    """The copies this process last served or rendered, by address, the least recently used
    giving way beyond ``limit`` bytes and none kept past ``PAGE_CACHE_SECONDS``.

    With the shared store they make a cleared cache cheap (a flush, a restart of Redis, an
    eviction): the process that takes a page's render lock checks its own copy against the
    database's versions (one small query) and writes it back instead of rendering, and the
    processes waiting meanwhile send theirs (``stale``), as after a change. Without them
    every page of a busy site is rendered again at once while the crowd waits."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._copies: OrderedDict[str, tuple[float, Copy, int]] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, address: str, copy: Copy) -> None:
        size = len(copy.body_gzip) + len(address) + 256  # the rest of a copy, roughly
        if size > self.limit:
            return
        with self._lock:
            self._remove(address)
            self._copies[address] = (time.monotonic(), copy, size)
            self.size += size
            while self.size > self.limit:
                self._remove(next(iter(self._copies)))

    def get(self, address: str) -> Copy | None:
        with self._lock:
            found = self._copies.get(address)
            if found is None:
                return None
            if time.monotonic() - found[0] > _seconds():
                self._remove(address)
                return None
            self._copies.move_to_end(address)
            return found[1]

    def drop(self, address: str) -> None:
        with self._lock:
            self._remove(address)

    def clear(self) -> None:
        with self._lock:
            self._copies.clear()
            self.size = 0

    def _remove(self, address: str) -> None:
        found = self._copies.pop(address, None)
        if found is not None:
            self.size -= found[2]


KEPT = KeptCopies(settings.PAGE_CACHE_KEPT_BYTES)


# ---------------------------------------------------------------------------
# The shared store (Redis)
# ---------------------------------------------------------------------------

# What a lookup found: the copy is right; it is not (another process renders the page: send
# it meanwhile); it is not, or there is none, and this process renders; there is none and
# another process renders it.
FRESH, STALE, RENDER, MISSING = 1, 2, 3, 4

# KEYS[1] the copy, KEYS[2] its render lock; ARGV[1] the versions' key prefix, ARGV[2] this
# request's token, ARGV[3] the lock's lifetime (ms). A copy is "scope:id=version,...|data".
_LOOKUP = """
local copy = redis.call('GET', KEYS[1])
if copy then
  local header = string.match(copy, '^([^|]*)|')
  local fresh = header ~= nil
  if fresh then
    for name, version in string.gmatch(header, '([^,=]+)=(%d+)') do
      if redis.call('GET', ARGV[1] .. name) ~= version then
        fresh = false
        break
      end
    end
  end
  if fresh then return {1, copy} end
end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return {3, copy or ''} end
if copy then return {2, copy} end
return {4, ''}
"""
# KEYS[1] the copy, KEYS[2] its lock, KEYS[3..] versions; ARGV[1] the copy ('' keeps the one
# there, '-' deletes it), ARGV[2] its lifetime (s), ARGV[3] the token, ARGV[4..] the
# versions. A version only ever rises (a bump and a reader's older figure may come in either
# order); one missing is written whatever it is (0 included: a missing one is no match).
_FINISH = """
for i = 3, #KEYS do
  local version, now = ARGV[i + 1], redis.call('GET', KEYS[i])
  if not now or tonumber(now) < tonumber(version) then redis.call('SET', KEYS[i], version) end
end
if ARGV[1] == '-' then
  redis.call('DEL', KEYS[1])
elseif ARGV[1] ~= '' then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 0
"""
# A render that dies frees its page after this; readers wait that long at most for another
# process's first copy of a page (a render that ends without one lets them render it).
RENDER_LOCK_MS = 10_000
WAIT_STEP = 0.025


class SharedStore:
    """Copies of pages and the versions they were filed under, side by side in Redis (the
    ``pages`` cache when ``CACHE_URL`` is set), so a hit is one round trip: a script reads
    the copy, compares the versions written at its head with the current ones and answers.
    A copy that is no longer right is rendered again by one process (which takes the page's
    lock in the same round trip) while the others are sent the copy they had — no crowd of
    renders after a change or a cleared cache. The database keeps the versions too and is
    asked when a page is rendered: a version the cache lost is written back from it."""

    def __init__(self, cache: RedisCache) -> None:
        self.cache = cache

    @classmethod
    def of(cls, cache: Any) -> SharedStore | None:
        return cls(cache) if isinstance(cache, RedisCache) else None

    def _client(self):
        return self.cache._cache.get_client(None, write=True)

    def _version_key(self, scope: str, pk: int) -> str:
        return self.cache.make_key(f"pv:{scope}:{pk}")

    def lookup(self, address: str, token: str) -> tuple[int, Copy | None]:
        state, data = _run(
            self._client(),
            _LOOKUP,
            [self.cache.make_key(address), self.cache.make_key(address + ":render")],
            [self.cache.make_key("pv:"), token, RENDER_LOCK_MS],
        )
        return int(state), Copy.loads(data) if data else None

    def wait(self, address: str) -> Copy | None:
        """The copy another process is rendering, once stored; None if its render ends
        without one (or takes longer than its lock): the caller renders the page itself."""
        key, lock = self.cache.make_key(address), self.cache.make_key(address + ":render")
        client = self._client()
        deadline = time.monotonic() + RENDER_LOCK_MS / 1000
        try:
            while time.monotonic() < deadline:
                time.sleep(WAIT_STEP)
                with client.pipeline(transaction=False) as both:
                    data, rendering = both.get(key).exists(lock).execute()
                if data:
                    return Copy.loads(data)
                if not rendering:
                    return None
        except RedisError:
            logger.warning("Page cache unreachable while waiting for %s.", address)
        return None

    def finish(
        self,
        address: str,
        token: str,
        versions: Versions = (),
        copy: Copy | None = None,
        *,
        drop: bool = False,
    ) -> None:
        """Write the versions back (never lowering one), store the copy if any (or ``drop``
        the one there), free the page's lock if this request holds it. Never raises: the
        answer goes out anyway."""
        try:
            _run(
                self._client(),
                _FINISH,
                [
                    self.cache.make_key(address),
                    self.cache.make_key(address + ":render"),
                    *(self._version_key(s, pk) for s, pk, _ in versions),
                ],
                [
                    copy.dumps() if copy is not None else b"-" if drop else b"",
                    _seconds(),
                    token,
                    *(v for _, _, v in versions),
                ],
            )
        except RedisError:
            logger.warning("Page cache unreachable: %s not stored.", address, exc_info=True)

    def raise_versions(self, versions: Versions) -> None:
        """The database's new versions, after a bump (one round trip)."""
        _run(
            self._client(),
            _FINISH,
            ["", "", *(self._version_key(s, pk) for s, pk, _ in versions)],
            [b"", 0, "", *(v for _, _, v in versions)],
        )


def _run(client: Any, source: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
    """Run a script: by its digest (one round trip), sent whole the first time Redis has not
    seen it."""
    try:
        return client.evalsha(_digest(source), len(keys), *keys, *args)
    except NoScriptError:
        return client.eval(source, len(keys), *keys, *args)


@functools.cache
def _digest(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 (Redis names scripts so)
