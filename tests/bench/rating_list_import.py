"""Rating-list benchmark on PostgreSQL: a list of 200,000 rows (BENCH_RATING_ROWS) checked
and imported by the import job's body (``apps.ratinglists.importing.run_import``: every row
checked, then one COPY), with its time and the process's peak memory growth; then the same
check alone under ``tracemalloc`` (the Python objects the check holds at its peak).

It runs in the benchmarks' own database (tests/bench/app.py: created and migrated when
missing, emptied before and after). ``python -m tests.bench --only ratinglists``, or
``python -m tests.bench.rating_list_import``.
"""

from __future__ import annotations

import datetime
import os
import resource
import time
import tracemalloc

ROWS = int(os.environ.get("BENCH_RATING_ROWS") or 200_000)
FEDERATIONS = ("ITA", "GER", "RUS", "USA", "ESP", "FRA", "NED", "POL", "CZE", "SWE")
TITLES = ("", "", "", "", "", "", "CCE", "CCM", "IM", "SIM", "GM")


def rating_list_csv(rows: int = ROWS) -> str:
    """A list of ``rows`` people: IDs 100000…, ratings 1200–2699 (every 50th unrated)."""
    lines = ["id,name,federation,rating,games,title"]
    for n in range(rows):
        rating = "" if n % 50 == 0 else str(1200 + (n * 7919) % 1500)
        lines.append(
            f"{100000 + n},Player {n:06d},{FEDERATIONS[n % len(FEDERATIONS)]},{rating},"
            f"{(n * 31) % 400},{TITLES[n % len(TITLES)]}"
        )
    return "\n".join(lines) + "\n"


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run() -> list[tuple[str, float, str]]:
    from .app import _set_up_django

    _set_up_django()
    from django.core.management import call_command

    from apps.ratinglists.importing import check_file, run_import
    from apps.ratinglists.models import RatingList, RatingListImportJob

    text = rating_list_csv()
    size_mb = len(text.encode()) / 1e6
    results = []
    try:
        job = RatingListImportJob.objects.create(
            name="Bench list",
            list_date=datetime.date(2026, 10, 1),
            csv=text,
            total_rows=ROWS,
        )
        before = _peak_mb()
        start = time.perf_counter()
        outcome = run_import(job.pk)
        seconds = time.perf_counter() - start
        growth = _peak_mb() - before
        job.refresh_from_db()
        listed = RatingList.objects.get()
        assert outcome == "imported" and listed.entries.count() == ROWS, (outcome, job.error)
        results.append(
            (
                f"import {ROWS:,} rows as a job (check + COPY)",
                seconds,
                f"{size_mb:.1f} MB file; {ROWS / seconds:,.0f} rows/s; "
                f"peak RSS +{growth:.0f} MB (process {_peak_mb():.0f} MB)",
            )
        )
        tracemalloc.start()
        start = time.perf_counter()
        checked = check_file(text)
        seconds = time.perf_counter() - start
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert checked.good and checked.rows == ROWS
        results.append(
            (
                f"check {ROWS:,} rows alone (under tracemalloc)",
                seconds,
                f"Python objects at the peak {peak / 1e6:.1f} MB (the file itself "
                f"{size_mb:.1f} MB)",
            )
        )
    finally:
        call_command("flush", interactive=False, verbosity=0)
    return results


if __name__ == "__main__":
    for label, seconds, detail in run():
        print(f"ratinglists {label:58s} {seconds:9.3f} s   {detail}")
