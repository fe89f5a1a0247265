from django.apps import AppConfig
from django.urls import register_converter


class CoreConfig(AppConfig):
    name = "apps.core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from .converters import IdConverter

        # Every number in an address is an <id:…> (apps/core/converters.py), never <int:…>.
        register_converter(IdConverter, "id")
