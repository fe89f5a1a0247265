"""Suite-wide rules for tests that need an outside service.

Mark a test `postgres`, `redis`, `browser`, `redocly` or `pgn_extract` when it needs
PostgreSQL, Redis, Chromium, Redocly's CLI (package.json's, installed by `npm ci`) or
pgn-extract (Debian's package).
Locally a missing service skips the test, so `make test` works on a bare machine. In CI
(`CI=true`) every service must be there, so a missing one fails the test instead of hiding
it behind a skip.

Celery tasks run inside the test process, even in CI where CELERY_BROKER_URL names Redis and
no worker listens; tests/worlds/worker.py starts a real worker where that is the point.
"""

import functools
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.core.cache import cache, caches
from django.utils import translation

from apps.core import pagecache
from config.celery import app as celery_app

CHROMIUM = Path("/usr/bin/chromium")
REDOCLY = Path(__file__).resolve().parent.parent / "node_modules" / ".bin" / "redocly"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@functools.cache
def _postgres_missing() -> str | None:
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        return None
    return "the database is not PostgreSQL (set DATABASE_URL=postgres://...)"


@functools.cache
def _redis_missing() -> str | None:
    url = os.environ.get("CELERY_BROKER_URL") or DEFAULT_REDIS_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except (redis.RedisError, ValueError) as error:
        return f"Redis does not answer at {url}: {error}"
    return None


@functools.cache
def _chromium_missing() -> str | None:
    if CHROMIUM.exists():
        return None
    return f"{CHROMIUM} is missing (apt-get install chromium)"


def pgn_extract_path() -> str | None:
    """Debian installs pgn-extract in /usr/games, which root's PATH may lack."""
    return shutil.which("pgn-extract") or shutil.which("pgn-extract", path="/usr/games")


@functools.cache
def _pgn_extract_missing() -> str | None:
    if pgn_extract_path():
        return None
    return "pgn-extract is missing (apt-get install pgn-extract)"


@functools.cache
def _redocly_missing() -> str | None:
    if REDOCLY.exists():
        return None
    return f"{REDOCLY} is missing (npm ci)"


_SERVICE_CHECKS = {
    "postgres": _postgres_missing,
    "redis": _redis_missing,
    "browser": _chromium_missing,
    "redocly": _redocly_missing,
    "pgn_extract": _pgn_extract_missing,
}


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, missing in _SERVICE_CHECKS.items():
        if item.get_closest_marker(marker) is None:
            continue
        reason = missing()
        if reason is None:
            continue
        if _in_ci():
            pytest.fail(f"CI needs {marker}: {reason}", pytrace=False)
        pytest.skip(reason)


@contextmanager
def tasks_in_process() -> Iterator[None]:
    """Celery tasks run inside this process (also where a broker is configured)."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = True
    try:
        yield
    finally:
        conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture(autouse=True)
def celery_in_process():
    with tasks_in_process():
        yield


@pytest.fixture(autouse=True)
def plain_http(settings):
    """The test client speaks plain http: no redirect to https, whatever DEBUG the settings
    were loaded with (production turns SECURE_SSL_REDIRECT on when DEBUG is off)."""
    settings.SECURE_SSL_REDIRECT = False


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's language, whichever language the test before it used
    (the locale middleware activates a request's language in the thread that serves it)."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def fresh_page_cache(request, monkeypatch):
    """Each test starts with no cached public page (copies live in each process's memory and
    would outlive the test's database). The test's transaction never commits, so page versions
    are bumped at once instead of after the commit; tests marked ``page_bumps_on_commit``
    keep the real timing (``apps.core.pagecache``)."""
    caches["pages"].clear()
    pagecache.KEPT.clear()  # what each process keeps for a shared cache (KeptCopies)
    if request.node.get_closest_marker("page_bumps_on_commit") is None:
        monkeypatch.setattr(pagecache, "after_commit", pagecache.bump_now)
    yield
    caches["pages"].clear()
    pagecache.KEPT.clear()


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Each test starts with empty rate-limit counters (they live in the default cache), so
    no test is throttled by the requests of the tests before it."""
    cache.clear()
    yield


@pytest.fixture
def never_run(monkeypatch):
    """``never_run(task)``: sending ``task`` goes nowhere, as with a broker nobody consumes;
    returns the list that collects the first argument of each send."""

    def stub(task) -> list:
        queued: list = []
        monkeypatch.setattr(task, "delay", queued.append)
        return queued

    return stub
