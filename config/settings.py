"""Settings for every environment, read from environment variables only.

With nothing set, the project runs for local development: DEBUG on, SQLite in the project root,
Celery tasks executed in-process (by a web process in the background, on a thread of its own:
config/inprocess.py), e-mail printed to the console. Production sets DATABASE_URL,
CELERY_BROKER_URL, SECRET_KEY and ALLOWED_HOSTS (see docker-compose.yml).

The helpers below take the environment as a mapping so that tests can call them with any
environment without reloading this module.
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def env_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    """Read a yes/no variable: 1/true/yes/on or 0/false/no/off; unset or empty gives `default`."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={env[name]!r} is not a yes/no value (use 1 or 0).")


def env_list(env: Mapping[str, str], name: str, default: str) -> list[str]:
    """Read a comma-separated variable, dropping blanks."""
    return [item.strip() for item in env.get(name, default).split(",") if item.strip()]


def database_from_env(env: Mapping[str, str], base_dir: Path = BASE_DIR) -> dict[str, Any]:
    """The default database: DATABASE_URL if set, else the SQLite file db.sqlite3 in base_dir."""
    url = env.get("DATABASE_URL") or f"sqlite:///{base_dir / 'db.sqlite3'}"
    config: dict[str, Any] = dict(dj_database_url.parse(url))
    if config["ENGINE"] == "django.db.backends.postgresql":
        config["CONN_MAX_AGE"] = 60
        config["CONN_HEALTH_CHECKS"] = True
        # Django's queries bind their parameters client-side and are never prepared; the
        # standings recompute prepares its few statements itself (``prepare=True``), which
        # psycopg refuses while the threshold is None (Django's default). A threshold this
        # high never prepares anything else. (Behind PgBouncer in transaction mode, use
        # PgBouncer 1.21+ with max_prepared_statements set.)
        config["OPTIONS"] = {"prepare_threshold": 1_000_000}
    elif config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = SQLITE_OPTIONS
    return config


# The embedded default serves a club's worth of TDs entering results at once: readers never
# wait for a writer (write-ahead log), every transaction takes the write lock when it begins
# (BEGIN IMMEDIATE: no deadlock between two readers that both turn writer, which SQLite could
# only answer with "database is locked" at once), and a writer waits up to 20 s for the lock.
SQLITE_OPTIONS = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": (
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;"
    ),
}


def cache_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """The default cache (it also counts the rate limits): Redis at CACHE_URL if set, else
    memory of each process (enough for one process; several web processes need CACHE_URL)."""
    url = env.get("CACHE_URL")
    if url:
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}


def page_cache_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """Where copies of public pages are kept (apps/core/pagecache.py), gzip-compressed: with
    the shared cache at CACHE_URL when set, so a page rendered by one web process serves the
    others; else in each process's memory, at most PAGE_CACHE_ENTRIES (the least recently used
    give way). Either is right on its own: a copy's key holds the versions read from the
    database."""
    url = env.get("CACHE_URL")
    if url:
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "pages",
        }
    return {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "OPTIONS": {"MAX_ENTRIES": int(env.get("PAGE_CACHE_ENTRIES", "2000"))},
    }


def celery_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """Celery settings: a real broker when CELERY_BROKER_URL is set, else in-process execution.

    Without a broker, tasks run eagerly inside the calling process and their exceptions reach
    the caller, so local development and tests need no worker.
    """
    broker_url = env.get("CELERY_BROKER_URL")
    if not broker_url:
        return {
            "CELERY_BROKER_URL": "memory://",
            "CELERY_RESULT_BACKEND": None,
            "CELERY_TASK_ALWAYS_EAGER": True,
            "CELERY_TASK_EAGER_PROPAGATES": True,
        }
    return {
        "CELERY_BROKER_URL": broker_url,
        "CELERY_RESULT_BACKEND": env.get("CELERY_RESULT_BACKEND") or broker_url,
        "CELERY_TASK_ALWAYS_EAGER": False,
        "CELERY_TASK_EAGER_PROPAGATES": False,
    }


def debug_from_env(env: Mapping[str, str]) -> bool:
    """DEBUG if set; else on for an SQLite database (the embedded default, whichever file
    DATABASE_URL names: `make run`, `make run-empty`) and off for any other (PostgreSQL:
    production). Pointing DATABASE_URL at another SQLite file does not turn DEBUG off."""
    url = env.get("DATABASE_URL", "").strip()
    return env_bool(env, "DEBUG", default=not url or url.startswith("sqlite:"))


SECRET_KEY_MISSING = (
    "SECRET_KEY is not set. With DEBUG off (DEBUG=0, or a database other than SQLite) the "
    "site needs a secret key of its own: set SECRET_KEY to a long random value, e.g. the "
    "output of  python -c 'import secrets; print(secrets.token_urlsafe(50))'  — or set "
    "DEBUG=1 for a development site."
)


def secret_key_from_env(env: Mapping[str, str], debug: bool) -> str:
    """SECRET_KEY; a development key when DEBUG is on; ImproperlyConfigured (saying what to
    do) when it is missing with DEBUG off."""
    key = env.get("SECRET_KEY", "")
    if key:
        return key
    if not debug:
        raise ImproperlyConfigured(SECRET_KEY_MISSING)
    return "django-insecure-local-development-only"


_ENV = os.environ

DEBUG = debug_from_env(_ENV)

try:
    SECRET_KEY = secret_key_from_env(_ENV, DEBUG)
except ImproperlyConfigured as missing:
    # One sentence on the terminal, not a traceback (manage.py, gunicorn, celery alike).
    raise SystemExit(f"Closed Circle cannot start: {missing}") from None

ALLOWED_HOSTS = env_list(_ENV, "ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

# HTTPS. With DEBUG off the site is assumed to be served over HTTPS only (what
# `manage.py check --deploy` asks for); with DEBUG on (`make run`, and the settings the tests
# import) everything below is off. Each can be overridden on its own, e.g. SECURE_SSL_REDIRECT=0,
# SESSION_COOKIE_SECURE=0 and CSRF_COOKIE_SECURE=0 for a DEBUG-off stack served over plain http
# on localhost (see docker-compose.yml).
_HTTPS = not DEBUG
SECURE_SSL_REDIRECT = env_bool(_ENV, "SECURE_SSL_REDIRECT", default=_HTTPS)
SESSION_COOKIE_SECURE = env_bool(_ENV, "SESSION_COOKIE_SECURE", default=_HTTPS)
CSRF_COOKIE_SECURE = env_bool(_ENV, "CSRF_COOKIE_SECURE", default=_HTTPS)
# HSTS: browsers only honour it on HTTPS responses. SECURE_HSTS_SECONDS=0 turns it off.
SECURE_HSTS_SECONDS = int(_ENV.get("SECURE_HSTS_SECONDS") or (31536000 if _HTTPS else 0))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool(_ENV, "SECURE_HSTS_INCLUDE_SUBDOMAINS", default=_HTTPS)
SECURE_HSTS_PRELOAD = env_bool(_ENV, "SECURE_HSTS_PRELOAD", default=_HTTPS)
# Behind a reverse proxy that terminates TLS, set SECURE_PROXY_SSL_HEADER=1: a request then
# counts as HTTPS when the proxy sends "X-Forwarded-Proto: https". The proxy must set (and
# overwrite) that header itself; without this setting SECURE_SSL_REDIRECT would redirect
# every proxied request for ever.
if env_bool(_ENV, "SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    # The admin, its login page rate-limited like the site's (apps/accounts/adminsite.py).
    "apps.accounts.adminsite.ClosedCircleAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # intcomma: every count a page shows, grouped as the language writes it
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "apps.core",
    "apps.stages",
    "apps.entrants",
    "apps.groups",
    "apps.results",
    "apps.standings",
    "apps.accounts",
    "apps.notifications",
    "apps.qualification",
    "apps.office",
    "apps.play",
    "apps.ratinglists",
    "apps.players",
    # The demo (manage.py demo): on the top floor, it runs every app's actions.
    "apps.demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    *([] if DEBUG else ["whitenoise.middleware.WhiteNoiseMiddleware"]),
    # Compression (gzip) of every response whose client accepts it: pages, JSON, CSV, TRF,
    # and the streamed PGN downloads (compressed as they stream, still streamed).
    # Placement: above every middleware that reads or changes the body, so it compresses
    # what they made; below WhiteNoise, whose static files are compressed once ahead
    # (.gz/.br next to each file) and never reach it.
    # BREACH (compression as an oracle for a secret in a body that also reflects the
    # attacker's input) — decided to compress everything, because:
    # - the credentials stay out of reach: the session id and the CSRF secret are cookies
    #   (headers are not gzipped), and the CSRF token in our forms is masked with a new
    #   random mask in every response (Django's get_token), so no two responses share it,
    #   which is what the attack needs;
    # - GZipMiddleware adds up to 100 random bytes to every compressed response ("Heal the
    #   Breach"), multiplying the requests an attack would need;
    # - the session cookie is SameSite=Lax (Django's default, kept): another site can make a
    #   signed-in browser send only top-level navigations, not the thousands of silent
    #   requests (images, fetch, frames) the attack uses;
    # - what is then left to guess is personal data a signed-in organizer sees next to a
    #   reflected search (e.g. addresses on the entrant list with ?q=), by an attacker who
    #   also watches the encrypted traffic: judged not worth serving every public page,
    #   crosstable, JSON list and download uncompressed. The big answers are public data.
    # To exempt a response, give it a Content-Encoding (GZipMiddleware skips those).
    "django.middleware.gzip.GZipMiddleware",
    # An address or header with a NUL character (%00): 400 with a sentence, before anything
    # looks up with it (the page cache below reads the database with the address's parts).
    "apps.core.middleware.NulCharacterMiddleware",
    # Anonymous readers of public pages get stored copies (apps/core/pagecache.py): below
    # GZip (copies go out compressed already), above everything a hit can skip.
    "apps.core.pagecache.PublicPageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # The address requests come in on, for e-mailed links while SITE_URL is empty.
    "apps.core.middleware.SiteUrlMiddleware",
    # API bodies over Django's upload limits: a JSON error before anything reads them.
    "apps.core.middleware.ApiRequestLimitsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A deadlock or lock timeout a view ran into: 503 with a sentence (apps/core/locking.py).
    "apps.core.middleware.LockConflictMiddleware",
    # A view's Http404: the project's 404 page, under DEBUG too (apps/core/middleware.py).
    "apps.core.middleware.NotFoundPageMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASES = {"default": database_from_env(_ENV)}
CACHES = {
    "default": cache_from_env(_ENV),
    "pages": page_cache_from_env(_ENV),
}
# How long a copy of a public page lives at most (changes retire it at once; this bounds
# texts that age, like "3 days left"). 0 turns the page cache off.
PAGE_CACHE_SECONDS = int(_ENV.get("PAGE_CACHE_SECONDS", "300"))
# With CACHE_URL: the copies each web process keeps of the pages it served, to put back into
# a cleared cache instead of rendering them all again (apps/core/pagecache.py, KeptCopies).
PAGE_CACHE_KEPT_BYTES = int(_ENV.get("PAGE_CACHE_KEPT_MB", "16")) * 1024 * 1024
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# Dates and times as the site writes them (config/formats/): 24-hour times (no "a.m." to end
# a sentence with "a.m.."), Italian dates without the weekday ("il 27 dicembre 2026"; the
# Italian month and weekday names are lower case in locale/it).
FORMAT_MODULE_PATH = ["config.formats"]
LANGUAGES = [("en", "English"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language chosen with the switcher is kept for a year (not only for the browser session).
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Hashed, compressed files need `collectstatic` first, so only production uses them.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

_CELERY = celery_from_env(_ENV)
# Without a broker, a web process runs the tasks in the background on a thread of its own
# (config/inprocess.py): long jobs return at once and show their progress. 0: run them
# inside the request that sends them (as management commands and the tests do).
TASKS_IN_BACKGROUND = env_bool(_ENV, "TASKS_IN_BACKGROUND", default=True)
CELERY_BROKER_URL = _CELERY["CELERY_BROKER_URL"]
CELERY_RESULT_BACKEND = _CELERY["CELERY_RESULT_BACKEND"]
CELERY_TASK_ALWAYS_EAGER = _CELERY["CELERY_TASK_ALWAYS_EAGER"]
CELERY_TASK_EAGER_PROPAGATES = _CELERY["CELERY_TASK_EAGER_PROPAGATES"]
CELERY_TIMEZONE = TIME_ZONE
# Sending a task must not hold a request when the broker is away: the connection is tried
# for at most a second (a refused one fails at once), a silent broker is given two, a send is
# tried again once, and then the sender logs the task and carries on (config/celery.py).
# Without these a dead broker cost each request 19 s and then an error (the default policy
# retries the connection for 4 s, three times, and the result backend twenty times).
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True  # a worker started before Redis waits for it
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 0,  # connecting to send: the publish retry policy above is the retry
    "socket_connect_timeout": 1,
    "socket_timeout": 2,
    # A task taken by a worker that dies with it (kill -9, a lost machine) goes back on the
    # queue this long after it was taken (Redis has no acknowledgement of its own; the
    # default is an hour). Longer than any task may run (the longest hard time limit: a Swiss
    # round's pairing, 16 minutes, apps/office/swiss/tasks.py; tests/core/test_task_limits.py
    # checks), else a task still running would be delivered a second time and hold a second
    # pool process (a second pairing waits on the stage's row); a pool process that dies
    # alone has its task put back at once (reject_on_worker_lost). Standings, draws and lab
    # runs do not wait for it: their sweeps queue them again within minutes.
    "visibility_timeout": 20 * 60,
}
# With late acknowledgement a worker holds one message per pool process beyond those it
# runs, not four: fewer wait for the visibility timeout when it is killed.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# No task's return value is read by anyone: none is stored, and sending a task does not
# subscribe to its result (which went to the backend, with its own retries, on every send).
CELERY_TASK_IGNORE_RESULT = True
# Queues. Interactive work (standings, draws, Swiss pairings, e-mails, sweeps) goes to the
# default queue ``celery``; format lab runs, minutes of simulation each part, go to a queue of
# their own, LAB_QUEUE, consumed by its own worker (``celery -A config worker -Q lab``; see
# README, Configuration, and docker-compose.yml's lab-worker), so a standings recompute never
# waits behind a lab run. LAB_QUEUE=celery keeps one queue (and one worker) for everything.
# Tasks run in-process (no CELERY_BROKER_URL) ignore queues.
CELERY_TASK_DEFAULT_QUEUE = "celery"
LAB_QUEUE = _ENV.get("LAB_QUEUE") or "lab"
CELERY_TASK_ROUTES = {"apps.office.tasks.run_lab": {"queue": LAB_QUEUE}}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
CELERY_REDIS_SOCKET_TIMEOUT = 2
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
}
# Standings heal themselves (apps/standings/freshness.py): a group whose recompute has been
# pending for longer than STANDINGS_STALE_SECONDS, and asked for longer ago than that, is
# queued again by the sweep that beat runs every STANDINGS_SWEEP_SECONDS.
STANDINGS_STALE_SECONDS = float(_ENV.get("STANDINGS_STALE_SECONDS") or 60)
STANDINGS_SWEEP_SECONDS = float(_ENV.get("STANDINGS_SWEEP_SECONDS") or 60)
# As many groups of one stage queued at once as this, or more (an import, a publication, a
# forced recompute, a sweep), are recomputed by one pass over the stage (one read, one
# write: apps/standings/groups.py recompute_stage) instead of a task each; 0: never.
STANDINGS_STAGE_BATCH = int(_ENV.get("STANDINGS_STAGE_BATCH") or 10)
CELERY_BEAT_SCHEDULE = {
    # Draw jobs whose tasks were lost (a killed worker, a broker outage) go on within minutes;
    # jobs past their time limit stop (apps/core/jobs.py Job.stalled).
    "resume-stalled-draws": {
        "task": "apps.office.tasks.resume_stalled_draws",
        "schedule": 60.0,
    },
    # Results import jobs whose task was lost (a killed worker) run again from their file.
    "resume-stalled-result-imports": {
        "task": "apps.results.tasks.resume_stalled_result_imports",
        "schedule": 60.0,
    },
    # Format lab runs whose task was lost go on the same way (apps/office/lab/runs.py stalled_runs).
    "resume-stalled-lab-runs": {
        "task": "apps.office.tasks.resume_stalled_lab_runs",
        "schedule": 60.0,
    },
    # Each TD gets yesterday's changes in their groups (once: a digest is never sent twice).
    "td-digests": {
        "task": "apps.notifications.tasks.send_td_digests",
        "schedule": crontab(hour=5, minute=0),
    },
}
# Tasks the broker did not take (it was away when a change committed) are sent again once
# it answers (apps/core/outbox.py).
OUTBOX_SWEEP_SECONDS = float(_ENV.get("OUTBOX_SWEEP_SECONDS") or 60)
CELERY_BEAT_SCHEDULE["send-unsent-tasks"] = {
    "task": "apps.core.tasks.send_unsent_tasks",
    "schedule": OUTBOX_SWEEP_SECONDS,
    "options": {"expires": OUTBOX_SWEEP_SECONDS},
}
CELERY_BEAT_SCHEDULE["standings-sweep"] = {
    "task": "apps.standings.tasks.sweep_stale_standings",
    "schedule": STANDINGS_SWEEP_SECONDS,
    # A sweep not run by the time of the next one is dropped: while no worker runs them,
    # beat keeps sending, and one is enough.
    "options": {"expires": STANDINGS_SWEEP_SECONDS},
}
# The end of play runs itself (apps/results/closing.py adjudicate_due_stages): every night,
# the open games of stages whose play ended before today go to adjudication. Each morning,
# players with games still open get one reminder per stage once play ends within
# DEADLINE_REMINDER_DAYS days (apps/notifications/services.py deadline_messages).
DEADLINE_REMINDER_DAYS = int(_ENV.get("DEADLINE_REMINDER_DAYS") or 7)
CELERY_BEAT_SCHEDULE["adjudicate-due-stages"] = {
    "task": "apps.results.tasks.adjudicate_due_stages",
    "schedule": crontab(hour=1, minute=0),
}
# Results players reported and nobody answered within the stage's report_accept_days stand
# (apps/results/reports.py accept_due_reports), checked every hour.
CELERY_BEAT_SCHEDULE["accept-due-reports"] = {
    "task": "apps.results.tasks.accept_due_reports",
    "schedule": crontab(minute=17),
}
# A Swiss round whose deadline passed (the stage's swiss_round_days after it started) has its
# unfinished games adjudicated and the next round paired, or left to the TDs, as the stage
# says (apps/office/swiss/deadlines.py), checked every hour.
CELERY_BEAT_SCHEDULE["swiss-deadlines"] = {
    "task": "apps.office.tasks.swiss_deadlines",
    "schedule": crontab(minute=23),
    # One sweep is enough: a sweep not run by the next one's time is dropped.
    "options": {"expires": 3600},
}
CELERY_BEAT_SCHEDULE["deadline-reminders"] = {
    "task": "apps.notifications.tasks.send_deadline_reminders",
    "schedule": crontab(hour=6, minute=0),
}
# Games played on the server: losses on time, silence reminders and losses by silence
# (apps/play/sweep.py), every PLAY_SWEEP_SECONDS; a sweep not run by the next one's time is
# dropped (two at once would do each thing once anyway).
PLAY_SWEEP_SECONDS = float(_ENV.get("PLAY_SWEEP_SECONDS") or 600)
CELERY_BEAT_SCHEDULE["play-sweep-clocks"] = {
    "task": "apps.play.tasks.sweep_clocks",
    "schedule": PLAY_SWEEP_SECONDS,
    "options": {"expires": PLAY_SWEEP_SECONDS},
}
# Players who chose the daily digest of their opponents' moves get yesterday's (UTC).
CELERY_BEAT_SCHEDULE["play-move-digests"] = {
    "task": "apps.play.tasks.send_move_digests",
    "schedule": crontab(hour=5, minute=30),
}

EMAIL_BACKEND = _ENV.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = _ENV.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(_ENV.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = _ENV.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = _ENV.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool(_ENV, "EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = _ENV.get("DEFAULT_FROM_EMAIL", "Closed Circle <closed-circle@localhost>")
# Links in e-mails start with this address (e-mails are written by tasks, outside requests).
# Empty: the address the site was last reached on (scheme, host and port; see
# apps/core/site.py), http://127.0.0.1:8000 until a first request came in.
SITE_URL = _ENV.get("SITE_URL", "")
# Automatic notifications skip these domains: the reserved example domains have no mailboxes
# (the demo's and the tests' invented players use them).
NOTIFICATIONS_SKIP_DOMAINS = env_list(
    _ENV, "NOTIFICATIONS_SKIP_DOMAINS", "example.com,example.net,example.org"
)
INVITATION_LINK_DAYS = 14
CLAIM_LINK_DAYS = 14

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "apps.core.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "apps.core.api.exception_handler",
    # JSON bodies nested deeper than apps.core.parsers.JSON_MAX_DEPTH are refused (400).
    "DEFAULT_PARSER_CLASSES": [
        "apps.core.parsers.JsonParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["apps.accounts.throttles.WriteRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "sign_in": "10/minute",  # per client address, pages and API together
        "write": "240/minute",  # API writes per user (per address when signed out)
    },
    # Proxies in front of the application; 0: the client's address is REMOTE_ADDR.
    "NUM_PROXIES": int(_ENV.get("NUM_PROXIES", "0")),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Closed Circle API",
    "DESCRIPTION": "Correspondence-chess tournaments: entrants, Silli closed-circle draws, "
    "results, standings and qualification.",
    "VERSION": "0.1.0",
    "OAS_VERSION": "3.1.0",
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from drf_spectacular_sidecar's static files: no CDN needed.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Every lookup and page can answer 404, every write 429: documented once (apps/core/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.schema.document_common_errors",
    ],
    # Numbers in addresses (apps/core/converters.py): integers of at most 18 digits.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 999_999_999_999_999_999}
    },
    "ENUM_NAME_OVERRIDES": {
        "StageStatusEnum": "apps.stages.models.Stage.Status",
        "DrawJobStatusEnum": "apps.stages.models.DrawJob.Status",
        # "format": a stage's (Silli or round robin), and a result file's (csv or pgn)
        "FormatEnum": "apps.stages.models.Stage.Format",
        "ResultFileFormatEnum": "apps.results.api.FILE_FORMATS",
        # play on the server: a side (also an account's colour), a claim's kind
        "ColourEnum": "apps.play.api.SIDES",
        "ClaimKindEnum": "apps.play.api.CLAIM_KINDS",
        "StageKindEnum": "apps.stages.models.Stage.Kind",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": _ENV.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # In-process tasks would log one line per task into the web server's output.
        "celery.app.trace": {"level": "WARNING" if CELERY_TASK_ALWAYS_EAGER else "INFO"},
        "kombu.connection": {"level": "ERROR" if CELERY_TASK_ALWAYS_EAGER else "WARNING"},
    },
}

# An entrant file of 100,000 rows is about 6 MB, and the import's confirm form carries it back.
DATA_UPLOAD_MAX_MEMORY_SIZE = 32 * 1024 * 1024
# The longest request body of any kind, files included (a 200,000-row entrant file is about
# 12 MB): longer ones are refused with 413 before they are read (apps.core.middleware).
REQUEST_BODY_MAX_BYTES = int(_ENV.get("REQUEST_BODY_MAX_BYTES", 32 * 1024 * 1024))
# Entrant files with more data rows are imported by a Celery job (apps/entrants/jobs.py).
ENTRANT_IMPORT_JOB_ROWS = int(_ENV.get("ENTRANT_IMPORT_JOB_ROWS", 5000))
# Rating lists of more data rows than this are imported by a Celery job (apps/ratinglists).
RATING_LIST_IMPORT_JOB_ROWS = int(_ENV.get("RATING_LIST_IMPORT_JOB_ROWS", 5000))
# Results files (CSV or PGN) of more characters than this are imported by a Celery job
# (apps/results/import_jobs.py): about 2,000 PGN games, seconds in a request.
RESULT_IMPORT_JOB_CHARS = int(_ENV.get("RESULT_IMPORT_JOB_CHARS", 200_000))
