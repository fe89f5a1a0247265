from django.apps import AppConfig


class OfficeConfig(AppConfig):
    name = "apps.office"
    default_auto_field = "django.db.models.BigAutoField"
