from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "apps.results"
    default_auto_field = "django.db.models.BigAutoField"
