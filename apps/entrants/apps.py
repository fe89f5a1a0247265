from django.apps import AppConfig


class EntrantsConfig(AppConfig):
    name = "apps.entrants"
    default_auto_field = "django.db.models.BigAutoField"
