from django.apps import AppConfig


class RatinglistsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.ratinglists"
    verbose_name = "Rating lists"
