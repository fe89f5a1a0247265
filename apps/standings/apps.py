from django.apps import AppConfig


class StandingsConfig(AppConfig):
    name = "apps.standings"
    default_auto_field = "django.db.models.BigAutoField"
