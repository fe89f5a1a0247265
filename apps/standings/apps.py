from django.apps import AppConfig


class StandingsConfig(AppConfig):
    name = "apps.standings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The standings' marks queue their tasks by name (apps/core/freshness.py): they are
        # registered in every process that marks, not only in workers.
        from . import tasks  # noqa: F401
