from django.apps import AppConfig


class GroupsConfig(AppConfig):
    name = "apps.groups"
    default_auto_field = "django.db.models.BigAutoField"
