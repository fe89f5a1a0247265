from django.apps import AppConfig


class GroupsConfig(AppConfig):
    name = "apps.groups"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import cached_pages

        cached_pages.register()
