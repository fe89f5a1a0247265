"""The embedded default (SQLite, tasks in-process) takes several TDs entering results at once:
no error answers, no lost result, no frozen standings.

The writers are separate processes on one SQLite file, as runserver's threads or several
processes would be; each enters its share of the results in its own transactions while the
others do the same, and the standings are recomputed after each result (in-process).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 6

pytestmark = pytest.mark.slow


def _run(db: Path, *args: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "1",
        "PYTHONPATH": str(ROOT),
    }
    for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
        env.pop(name, None)  # the embedded default: tasks in-process
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> str:
    out, _ = process.communicate(timeout=600)
    assert process.returncode == 0, out
    return out


def test_parallel_result_entry_on_sqlite_loses_nothing(tmp_path):
    db = tmp_path / "db.sqlite3"
    _finish(_run(db, "manage.py", "migrate", "--noinput"))
    total = int(_finish(_run(db, "-m", "tests.e2e.sqlite_writers", "setup")).split()[-1])

    writers = [
        _run(db, "-m", "tests.e2e.sqlite_writers", "write", str(i), str(WRITERS))
        for i in range(WRITERS)
    ]
    outputs = [_finish(w) for w in writers]
    assert all(o.strip().splitlines()[-1].startswith("ok") for o in outputs), outputs
    assert sum(int(o.split()[-1]) for o in outputs) == total

    check = _run(
        db,
        "-c",
        "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings');"
        "import django; django.setup();"
        "from apps.groups.models import Game, Group;"
        "from apps.standings.models import GroupStanding;"
        "from apps.standings.groups import recompute_group;"
        "open_games = Game.objects.filter(result='').count();"
        "pending = Group.objects.filter(standings_pending=True).count();"
        "before = sorted(GroupStanding.objects.values_list('entrant_id', 'points', 'place'));"
        "[recompute_group(g.pk) for g in Group.objects.all()];"
        "after = sorted(GroupStanding.objects.values_list('entrant_id', 'points', 'place'));"
        "print(open_games, pending, before == after, len(after))",
    )
    open_games, pending, same, rows = _finish(check).split()[-4:]
    assert (open_games, pending, same) == ("0", "0", "True")
    assert int(rows) == 60
