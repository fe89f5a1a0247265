"""The office's Celery tasks keep the names that queued messages, the outbox and the beat
schedule know them by, wherever their module now is (the draw's, Swiss play's, the lab's)."""

from config.celery import app

NAMES = {
    "apps.office.tasks.run_draw",
    "apps.office.tasks.draw_groups",
    "apps.office.tasks.draw_group",
    "apps.office.tasks.finish_draw",
    "apps.office.tasks.resume_stalled_draws",
    "apps.office.tasks.store_published_files",
    "apps.office.tasks.pair_swiss_round",
    "apps.office.tasks.swiss_deadlines",
    "apps.office.tasks.run_lab",
    "apps.office.tasks.resume_stalled_lab_runs",
}


def test_every_office_task_keeps_its_registered_name():
    app.loader.import_default_modules()
    assert {name for name in app.tasks if name.startswith("apps.office.")} == NAMES


def test_every_beat_entry_finds_its_task(settings):
    app.loader.import_default_modules()
    assert all(entry["task"] in app.tasks for entry in settings.CELERY_BEAT_SCHEDULE.values())
