"""The Celery app: configured from Django settings (the CELERY_* names), tasks found per app.

**A broker that is away never fails a request.** Tasks are sent after the sender's
transaction has committed (``transaction.on_commit``), so an exception there would answer an
error for a change that was saved. Outside a worker, a task that cannot reach the broker is
therefore logged and not raised (:class:`Task`); the settings bound what the attempt costs
(about a second: ``CELERY_BROKER_CONNECTION_TIMEOUT``, ``CELERY_BROKER_TRANSPORT_OPTIONS``,
``CELERY_TASK_PUBLISH_RETRY_POLICY``), and for a few seconds after a failure the process does
not try that broker again. The task is not lost: it is kept in the database's outbox and
sent by the outbox sweep when the broker is back (apps/core/outbox.py), unless its need is
kept elsewhere already (standings: their mark and the sweep, apps/standings/freshness.py;
draws and format lab runs: the job or run and its sweep) and the task says
``outbox = False``.
Inside a worker the error is raised as before: the running task fails or retries.

**No broker at all** (the embedded default): tasks are executed in-process. A web process
runs them in the background, one at a time, on the in-process worker's thread
(``config/inprocess.py``, started by ``config/wsgi.py``); everything else (management
commands, the tests) runs them inside the caller (eager).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid

from celery import Celery
from celery import Task as BaseTask
from kombu.exceptions import OperationalError
from kombu.utils.url import maybe_sanitize_url

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)

# After a failed send, this process sends nothing to the same broker for this many seconds
# (each attempt would cost the request the connect timeout again).
BROKER_RETRY_AFTER = 5.0

_broker_down_until: dict[str, float] = {}
_lock = threading.Lock()


def broker_unreachable(url: str) -> bool:
    """True while a recent send to ``url`` failed (see :data:`BROKER_RETRY_AFTER`)."""
    with _lock:
        return _broker_down_until.get(url, 0.0) > time.monotonic()


def _remember_broker_down(url: str) -> None:
    with _lock:
        _broker_down_until[url] = time.monotonic() + BROKER_RETRY_AFTER


def forget_broker_failures() -> None:
    """Try every broker again at the next send (tests that bring a broker back)."""
    with _lock:
        _broker_down_until.clear()


class Task(BaseTask):
    """Every task of the app: sending one from outside a worker never raises because the
    broker is unreachable. The task is kept in the outbox (``apps.core.outbox``), whose sweep
    sends it when the broker is back, unless the task says ``outbox = False`` (its need is
    kept elsewhere); either way the log says it was not queued."""

    outbox = True

    def apply_async(self, args=None, kwargs=None, task_id=None, *more, **options):
        app = self.app
        if app.conf.task_always_eager:
            # The embedded default (no broker): the in-process worker's thread runs it,
            # and the sender carries on at once (config/inprocess.py); a task sent by a
            # task running there is queued behind it, as a worker would take it.
            from .inprocess import current

            worker = current()
            if worker is not None:
                return self.AsyncResult(worker.submit(self.name, args, kwargs, task_id))
        if app.conf.task_always_eager or app.current_worker_task is not None:
            return super().apply_async(args, kwargs, task_id, *more, **options)
        url = app.conf.broker_url or ""
        task_id = task_id or str(uuid.uuid4())
        if broker_unreachable(url):
            self._not_queued(url, args, kwargs, "it did not answer a moment ago")
            return self.AsyncResult(task_id)
        try:
            return super().apply_async(args, kwargs, task_id, *more, **options)
        except OperationalError as error:
            _remember_broker_down(url)
            self._not_queued(url, args, kwargs, str(error))
            return self.AsyncResult(task_id)

    def _not_queued(self, url: str, args, kwargs, reason: str) -> None:
        kept = False
        if self.outbox:
            from apps.core.outbox import keep

            kept = keep(self.name, args, kwargs)
        logger.error(
            "Task %s%r not queued: the broker at %s is unreachable (%s).%s",
            self.name,
            tuple(args or ()),
            maybe_sanitize_url(url),
            reason,
            " It is kept in the outbox and sent when the broker is back." if kept else "",
        )


app = Celery("closed_circle", task_cls=Task)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
