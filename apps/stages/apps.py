from django.apps import AppConfig


class StagesConfig(AppConfig):
    name = "apps.stages"
    default_auto_field = "django.db.models.BigAutoField"
