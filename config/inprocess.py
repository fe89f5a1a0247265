"""The in-process worker: the embedded default's Celery worker and beat, in one thread.

Without ``CELERY_BROKER_URL`` there is no broker and no worker process. Tasks used to run
eagerly inside the request that sent them, so a format lab run, a draw or a big import held
the browser until it finished, with no progress to see. Now the web process (``config/wsgi.py``:
``runserver``, ``make run``, or gunicorn without a broker) starts :data:`worker`, one daemon
thread that takes the tasks this process sends, in the order they were sent, and runs them
one at a time (``Task.apply``, as eager execution does). The request that sent a task returns
at once; the job's page shows its progress as it does with Redis and a worker.

**SQLite, one writer.** The tasks run one after another, never two at once, so the worker
writes with one connection of its own; the requests' writes wait for its transactions at
most the SQLite busy timeout (``config/settings.py`` ``SQLITE_OPTIONS``: 20 s, and every
transaction takes the write lock when it begins, so nothing deadlocks). Its steps are short
transactions (a draw's batch, a lab run's chunk), as they are for a worker.

**Beat too.** The thread sends beat's schedule (``CELERY_BEAT_SCHEDULE``: the sweeps that
resume lost jobs, reports that stand, the nightly adjudication, the digests) when each is
due, as ``celery beat`` would; a periodic task still waiting in the queue is not sent again.
A job whose task was lost when the process stopped (a reload of ``runserver``) is resumed by
its sweep within minutes of the next start.

**Tests keep eager execution.** Nothing starts the worker but ``config/wsgi.py`` (and tests
of the worker itself, which start their own): the test client and pytest-django's live
server never import it, so every other test runs its tasks inside the caller, deterministic.
``TASKS_IN_BACKGROUND=0`` turns the worker off for a web process too (tasks run in the
request, as before).
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from celery import Celery
from celery.schedules import schedule as every

logger = logging.getLogger(__name__)

# How long the thread sleeps at the most before it looks at beat's schedule again.
BEAT_TICK = 30.0


@dataclass
class _Periodic:
    name: str
    task: str
    schedule: Any
    last_run_at: datetime
    waiting: bool = False


@dataclass
class _Item:
    task: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    task_id: str
    periodic: _Periodic | None = field(default=None)


class InProcessWorker:
    """A thread that runs the tasks sent to it one at a time, and beat's schedule."""

    def __init__(self, app: Celery[Any], *, beat: bool = True) -> None:
        self.app = app
        self.beat = beat
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._periodic: list[_Periodic] = []

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def start(self) -> None:
        """Start the thread (once; later calls do nothing)."""
        with self._lock:
            if self.running:
                return
            self._periodic = self._schedule() if self.beat else []
            self._thread = threading.Thread(target=self._run, name="in-process-worker", daemon=True)
            self._thread.start()
        logger.info("Tasks run in the background, in this process (no CELERY_BROKER_URL).")

    def stop(self) -> None:
        """Finish what is queued, then stop the thread (tests)."""
        thread = self._thread
        if thread is None:
            return
        self._queue.put(None)
        thread.join()
        self._thread = None

    def submit(self, task: str, args: Any, kwargs: Any, task_id: str | None = None) -> str:
        """Queue ``task`` to run in the thread; returns its id at once."""
        task_id = task_id or str(uuid.uuid4())
        self._queue.put(_Item(task, tuple(args or ()), dict(kwargs or {}), task_id))
        return task_id

    def join(self) -> None:
        """Wait until every task queued so far, and every task those sent, has run (tests)."""
        self._queue.join()

    # -- the thread ----------------------------------------------------------------------

    def _schedule(self) -> list[_Periodic]:
        now = self.app.now()
        found = []
        for name, entry in (self.app.conf.beat_schedule or {}).items():
            when = entry["schedule"]
            if isinstance(when, int | float | timedelta):
                seconds = when.total_seconds() if isinstance(when, timedelta) else when
                when = every(timedelta(seconds=seconds), app=self.app)
            found.append(_Periodic(name, entry["task"], when, now))
        return found

    def _send_due(self) -> float:
        """Queue the periodic tasks that are due; the seconds until one may be due next."""
        wait = BEAT_TICK
        for periodic in self._periodic:
            state = periodic.schedule.is_due(periodic.last_run_at)
            if state.is_due and not periodic.waiting:
                periodic.last_run_at = self.app.now()
                periodic.waiting = True
                self._queue.put(_Item(periodic.task, (), {}, str(uuid.uuid4()), periodic=periodic))
            wait = min(wait, max(1.0, float(state.next)))
        return wait

    def _run(self) -> None:
        wait = BEAT_TICK
        while True:
            if self._periodic:
                wait = self._send_due()
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                continue
            try:
                if item is None:
                    return
                self._execute(item)
            finally:
                self._queue.task_done()

    def _execute(self, item: _Item) -> None:
        from django.db import close_old_connections

        if item.periodic is not None:
            item.periodic.waiting = False
        task = self.app.tasks.get(item.task)
        if task is None:
            logger.error("In-process worker: no task %s; %r dropped.", item.task, item.args)
            return
        close_old_connections()
        try:
            # As eager execution runs it (retries included), but an exception is logged
            # here, not raised: nobody waits for it (a job's failure hook records it).
            result = task.apply(item.args, item.kwargs, task_id=item.task_id, throw=False)
            if result.failed():
                logger.error(
                    "Task %s%r failed: %r",
                    item.task,
                    item.args,
                    result.result,
                    exc_info=result.result if isinstance(result.result, BaseException) else None,
                )
        except Exception:  # the thread goes on with the next task whatever happened
            logger.exception("Task %s%r failed.", item.task, item.args)
        finally:
            close_old_connections()


_worker: InProcessWorker | None = None


def current() -> InProcessWorker | None:
    """The running in-process worker of this process, if any."""
    worker = _worker
    return worker if worker is not None and worker.running else None


def install(worker: InProcessWorker | None) -> InProcessWorker | None:
    """Make ``worker`` the one tasks are sent to (None: none); returns the previous one."""
    global _worker
    previous, _worker = _worker, worker
    return previous


def start_if_embedded() -> InProcessWorker | None:
    """Start the in-process worker when tasks would otherwise run inside the requests: no
    broker configured (eager execution) and ``TASKS_IN_BACKGROUND`` on (the default)."""
    from django.conf import settings

    from .celery import app

    if not getattr(settings, "TASKS_IN_BACKGROUND", False) or not app.conf.task_always_eager:
        return None
    worker = current()
    if worker is None:
        worker = InProcessWorker(app)
        install(worker)
        worker.start()
    return worker
