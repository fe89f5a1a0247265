from django.apps import AppConfig


class OfficeConfig(AppConfig):
    name = "apps.office"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.results.signals import results_changed

        # Celery finds each app's tasks.py; the tasks of the office's rooms are registered here.
        from .lab import tasks as lab_tasks  # noqa: F401
        from .swiss import tasks as swiss_tasks  # noqa: F401
        from .swiss.pairing import pair_when_round_complete

        # A Swiss round is paired once its last result is in (after the result's commit).
        results_changed.connect(pair_when_round_complete, dispatch_uid="office-swiss-next-round")
