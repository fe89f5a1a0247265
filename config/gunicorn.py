"""gunicorn's settings for the site: ``gunicorn -c config/gunicorn.py config.wsgi:application``
(the Dockerfile's command and docker-compose.yml's web service). Each can be set from the
environment; README, Configuration, lists them.

Sized for the 2-core machine the benchmarks run on (tests/bench/load.py): 3 processes of 4
threads each answered 30–39 requests/s under 64 readers against 24–27 for 4 sync processes,
2 × 8 or 5 × 2 threads. Threads suit the site's requests, which mostly wait on PostgreSQL or
Redis; everything long runs as a Celery job (imports, draws, publications, pairings, lab
runs), so no request needs more than a few seconds and the timeout stays short.
"""

from __future__ import annotations

import os

bind = os.environ.get("GUNICORN_BIND") or "0.0.0.0:8000"
workers = int(os.environ.get("WEB_CONCURRENCY") or 3)
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS") or 4)
# The slowest request a reader can make is a ranking CSV written while it is sent (its stored
# file out of date: seconds at 100,000 entrants); a worker silent for longer is restarted.
timeout = int(os.environ.get("GUNICORN_TIMEOUT") or 60)
graceful_timeout = 30
keepalive = 5
# A process is replaced after this many requests (and a jitter, so not all at once): what a
# long-lived process keeps growing (caches, fragmentation) stays bounded.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS") or 2000)
max_requests_jitter = max_requests // 10
accesslog = "-"
