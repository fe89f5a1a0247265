"""Public pages from the shared cache (Redis, ``CACHE_URL``; apps/core/pagecache.py
``SharedStore``): a hit is one round trip to Redis and none to the database; after a change
one process renders the page again while the others get the copy they had; a cache that lost
its versions or went away costs renders, never a wrong or failed answer."""

import os
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.core.cache import caches
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.core import pagecache
from apps.groups.models import Game
from apps.results.services import enter_result
from tests.conftest import DEFAULT_REDIS_URL
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

pytestmark = [pytest.mark.django_db, pytest.mark.redis]

PAGES_DB = 12  # a Redis database of these tests' own (emptied)


def _url() -> str:
    parts = urlsplit(os.environ.get("CELERY_BROKER_URL") or DEFAULT_REDIS_URL)
    return urlunsplit(parts._replace(path=f"/{PAGES_DB}"))


@pytest.fixture
def shared(settings):
    """The copies in Redis, as in production with CACHE_URL."""
    settings.CACHES = {
        **settings.CACHES,
        "pages": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _url(),
            "KEY_PREFIX": "pages",
        },
    }
    redis.Redis.from_url(_url()).flushdb()
    pagecache.KEPT.clear()
    yield caches["pages"]
    redis.Redis.from_url(_url()).flushdb()
    pagecache.KEPT.clear()


class Commands:
    """Counts the commands sent to Redis (a script is one)."""

    def __init__(self, monkeypatch):
        self.sent: list[str] = []
        original = redis.Redis.execute_command

        def counted(client, *args, **options):
            self.sent.append(str(args[0]))
            return original(client, *args, **options)

        monkeypatch.setattr(redis.Redis, "execute_command", counted)


def group_url(stage, name="group", number=1):
    return reverse(name, args=[stage.tournament.slug, stage.order, number])


def test_a_hit_is_one_round_trip_to_redis_and_none_to_the_database(
    client, shared, published_stage, monkeypatch
):
    address = group_url(published_stage, "group-crosstable")
    first = client.get(address)
    assert first["X-Cache"] == "miss"
    commands = Commands(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        hit = client.get(address)
    assert hit["X-Cache"] == "hit"
    assert hit.content == first.content
    assert len(queries) == 0
    assert commands.sent == ["EVALSHA"]


def test_every_public_page_is_stored_and_served_from_redis(client, shared, published_stage):
    group = published_stage.groups.get(number=1)
    addresses = [
        reverse("home"),
        reverse("tournament", args=[published_stage.tournament.slug]),
        reverse("stage", args=[published_stage.tournament.slug, published_stage.order]),
        group_url(published_stage),
        group_url(published_stage, "group-standings"),
        f"/api/groups/{group.pk}/standings/",
        f"/api/stages/{published_stage.pk}/ranking/",
    ]
    for address in addresses:
        first = client.get(address)
        assert first.status_code == 200 and first["X-Cache"] == "miss", address
        second = client.get(address)
        assert second["X-Cache"] == "hit", address
        assert second.content == first.content, address


def test_a_result_retires_its_groups_pages_not_the_others(
    client, shared, organizer, published_stage
):
    mine, other = group_url(published_stage), group_url(published_stage, number=2)
    home = reverse("home")
    for address in (mine, other, home):
        client.get(address)
    game = Game.objects.filter(group__stage=published_stage, group__number=1).first()
    enter_result(organizer, game, "1-0", expected_version=game.version)
    changed = client.get(mine)
    assert changed["X-Cache"] == "miss"
    assert client.get(mine)["X-Cache"] == "hit"
    assert client.get(other)["X-Cache"] == "hit"
    assert client.get(home)["X-Cache"] == "hit"


def test_a_tournaments_change_retires_the_home_page(client, shared, published_stage):
    home = reverse("home")
    client.get(home)
    assert client.get(home)["X-Cache"] == "hit"
    pagecache.bump_now([(pagecache.TOURNAMENT, published_stage.tournament_id)])
    assert client.get(home)["X-Cache"] == "miss"


def test_while_one_process_renders_a_changed_page_the_others_get_the_copy_they_had(
    client, shared, organizer, published_stage
):
    address = group_url(published_stage, "group-crosstable")
    before = client.get(address).content
    game = Game.objects.filter(group__stage=published_stage, group__number=1).first()
    enter_result(organizer, game, "1-0", expected_version=game.version)
    # Another process took the page's render lock.
    lock = shared.make_key(next(iter(_address_keys(address))) + ":render")
    redis.Redis.from_url(_url()).set(lock, "someone else", px=10_000)
    with CaptureQueriesContext(connection) as queries:
        stale = client.get(address)
    assert stale["X-Cache"] == "stale" and stale.content == before
    assert len(queries) == 0
    redis.Redis.from_url(_url()).delete(lock)
    fresh = client.get(address)
    assert fresh["X-Cache"] == "miss" and fresh.content != before


def _address_keys(address: str):
    request = RequestFactory().get(address)
    found = pagecache.PublicPageCacheMiddleware.address(request)
    assert found is not None
    yield found[0]


def test_versions_the_cache_lost_are_read_again_from_the_database_without_a_render(
    client, shared, published_stage, monkeypatch
):
    address = group_url(published_stage)
    client.get(address)
    server = redis.Redis.from_url(_url())
    for key in server.scan_iter("*:pv:*"):
        server.delete(key)
    rendered = []
    original = pagecache.PublicPageCacheMiddleware._when_rendered
    monkeypatch.setattr(
        pagecache.PublicPageCacheMiddleware,
        "_when_rendered",
        staticmethod(lambda r, s: rendered.append(r) or original(r, s)),
    )
    again = client.get(address)
    assert again["X-Cache"] == "hit" and rendered == []
    with CaptureQueriesContext(connection) as queries:
        assert client.get(address)["X-Cache"] == "hit"
    assert len(queries) == 0  # the versions are back


class Renders:
    """Counts the pages rendered by their views (stored after)."""

    def __init__(self, monkeypatch):
        self.responses: list = []
        original = pagecache.PublicPageCacheMiddleware._when_rendered
        monkeypatch.setattr(
            pagecache.PublicPageCacheMiddleware,
            "_when_rendered",
            staticmethod(lambda r, s: self.responses.append(r) or original(r, s)),
        )


def test_a_cleared_cache_takes_back_the_copy_this_process_kept_without_a_render(
    client, shared, published_stage, monkeypatch
):
    address = group_url(published_stage, "group-crosstable")
    first = client.get(address)
    assert first["X-Cache"] == "miss"
    redis.Redis.from_url(_url()).flushdb()  # a restart, a flush, a deploy
    renders = Renders(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        again = client.get(address)
    assert again["X-Cache"] == "restored" and again.content == first.content
    assert renders.responses == []
    assert len(queries) == 1  # the versions, to check the kept copy against
    with CaptureQueriesContext(connection) as queries:
        assert client.get(address)["X-Cache"] == "hit"  # back in the shared cache
    assert len(queries) == 0


def test_a_kept_copy_that_is_no_longer_right_is_rendered_again(
    client, shared, organizer, published_stage, monkeypatch
):
    address = group_url(published_stage, "group-crosstable")
    before = client.get(address).content
    game = Game.objects.filter(group__stage=published_stage, group__number=1).first()
    enter_result(organizer, game, "1-0", expected_version=game.version)
    redis.Redis.from_url(_url()).flushdb()
    renders = Renders(monkeypatch)
    after = client.get(address)
    assert after["X-Cache"] == "miss" and after.content != before
    assert len(renders.responses) == 1


def test_while_another_process_renders_a_cleared_page_this_one_sends_the_copy_it_kept(
    client, shared, published_stage
):
    address = group_url(published_stage, "group-crosstable")
    first = client.get(address).content
    server = redis.Redis.from_url(_url())
    server.flushdb()
    server.set(shared.make_key(next(_address_keys(address)) + ":render"), "another", px=10_000)
    with CaptureQueriesContext(connection) as queries:
        meanwhile = client.get(address)
    assert meanwhile["X-Cache"] == "stale" and meanwhile.content == first
    assert len(queries) == 0


def test_kept_copies_stay_within_their_bytes_and_age(settings):
    kept = pagecache.KeptCopies(limit=3 * 1300)
    copy = pagecache.Copy((), b"x" * 1000, 'W/"e"')
    for n in range(5):
        kept.keep(f"page:{n}", copy)
    assert kept.size <= kept.limit
    assert kept.get("page:0") is None and kept.get("page:4") is copy
    kept.get("page:2")  # used: the least recently used gives way first
    kept.keep("page:5", copy)
    assert kept.get("page:2") is copy and kept.get("page:3") is None
    settings.PAGE_CACHE_SECONDS = 0
    time.sleep(0.01)
    assert kept.get("page:2") is None and kept.size < 3 * 1300
    kept.keep("huge", pagecache.Copy((), b"x" * 10_000, 'W/"h"'))
    assert kept.get("huge") is None


def test_a_page_the_public_may_not_see_is_never_stored(client, shared, drawn_stage):
    address = group_url(drawn_stage)
    assert client.get(address).status_code == 404
    assert client.get(address).status_code == 404
    assert "X-Cache" not in client.get(address)
    assert not redis.Redis.from_url(_url()).keys("*render*")  # the lock was let go


def test_a_page_withdrawn_from_the_public_loses_its_copy(client, shared, published_stage):
    address = group_url(published_stage)
    assert client.get(address).status_code == 200
    assert client.get(address)["X-Cache"] == "hit"
    type(published_stage).objects.filter(pk=published_stage.pk).update(status="drawn")
    pagecache.bump_now([(pagecache.STAGE, published_stage.pk)])
    assert client.get(address).status_code == 404
    server = redis.Redis.from_url(_url())
    assert not server.exists(shared.make_key(next(_address_keys(address))))
    assert client.get(address).status_code == 404


def test_with_the_cache_unreachable_pages_are_answered_by_their_views(
    client, settings, published_stage
):
    settings.CACHES = {
        **settings.CACHES,
        "pages": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nobody listens
            "OPTIONS": {"socket_connect_timeout": 0.2},
        },
    }
    answer = client.get(group_url(published_stage))
    assert answer.status_code == 200 and "X-Cache" not in answer


def test_a_crowd_after_the_cache_is_cleared_renders_each_page_once(shared, monkeypatch):
    """64 readers of one page at once, no copy anywhere: one renders, the others wait for
    its copy (the resolver answers without the database, so the readers can be threads)."""
    monkeypatch.setitem(
        pagecache._PAGES,
        "home",
        pagecache.Page(lambda: (("t", 0, 7),), api=False, params=frozenset()),
    )
    renders = []

    def view(request):
        from django.http import HttpResponse

        renders.append(1)
        time.sleep(0.3)
        return HttpResponse(b"the page")

    middleware = pagecache.PublicPageCacheMiddleware(view)
    answers: list[str] = []
    bodies: set[bytes] = set()

    def read():
        answer = middleware(RequestFactory().get("/"))
        answers.append(answer["X-Cache"])
        bodies.add(answer.content)

    readers = [threading.Thread(target=read) for _ in range(64)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert len(renders) == 1
    assert answers.count("miss") == 1 and "hit" in answers
    # A reader that looks while the renderer has kept its copy in this process but not yet
    # stored it in the shared cache gets that copy as "stale" (seen on a loaded machine):
    # still the one render.
    assert set(answers) <= {"hit", "miss", "stale"} and bodies == {b"the page"}
