"""An entrant file with a NUL character big enough to be imported by a job is refused by row
(400 ``bad_rows``), as a small file's rows are, never a server error (issue 26, item 6): the
job keeps the file in a text column, which PostgreSQL cannot fill with NUL. Run on
PostgreSQL too (DATABASE_URL=postgres://...)."""

from __future__ import annotations

import pytest

from apps.entrants import importing, tasks
from apps.entrants.models import ImportJob

from .test_import_jobs import JOB_ROWS, big_file, import_url

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_threshold(settings, monkeypatch):
    settings.ENTRANT_IMPORT_JOB_ROWS = JOB_ROWS
    monkeypatch.setattr(importing, "PIECE_ROWS", 7)


@pytest.mark.parametrize("dry_run", ["0", "1"])
def test_a_big_file_with_a_nul_is_refused_by_row(org, stage, never_run, dry_run):
    queued = never_run(tasks.run_import)
    text = big_file(30).replace("Player, No 4", "Player\x00 No 4").replace("No 20", "No\x0020")
    answer = org.post(import_url(stage, f"?dry_run={dry_run}"), text, content_type="text/csv")
    assert answer.status_code == 400, answer.content[:300]
    body = answer.json()
    assert body["code"] == "bad_rows"
    assert [d["line"] for d in body["details"]] == [6, 22]
    assert all("U+0000" in d["message"] for d in body["details"])
    assert not ImportJob.objects.exists() and queued == []
