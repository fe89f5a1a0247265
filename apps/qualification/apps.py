from django.apps import AppConfig


class QualificationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.qualification"
    verbose_name = "Qualification"
