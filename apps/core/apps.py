from django.apps import AppConfig
from django.urls import register_converter


class CoreConfig(AppConfig):
    name = "apps.core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.core.converters import IdConverter

        # Before any URL module is imported (they are, lazily, after every app is ready).
        register_converter(IdConverter, "id")
