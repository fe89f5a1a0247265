"""Redis hands a task its worker has not acknowledged to another worker after the
transport's visibility timeout. A task allowed to run longer than that would be delivered a
second time while it still runs (a Swiss pairing copy then waits on the stage's row in a
second pool process). Every task's hard time limit stays below the visibility timeout."""

from django.conf import settings

from config.celery import app


def test_every_task_ends_before_redis_hands_it_out_again():
    app.loader.import_default_modules()
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    limited = {
        name: task.time_limit
        for name, task in app.tasks.items()
        if name.startswith("apps.") and task.time_limit
    }
    assert "apps.office.tasks.pair_swiss_round" in limited  # the longest
    too_long = {name: limit for name, limit in limited.items() if limit >= visibility}
    assert not too_long, f"longer than the visibility timeout ({visibility} s): {too_long}"
