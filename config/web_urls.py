"""HTML page routes: each app owns its own (``apps/<app>/urls.py``); this module includes them."""

from django.urls import include, path

APPS = (
    "office",
    "accounts",
    "entrants",
    "groups",
    "results",
    "standings",
    "qualification",
    "play",
    "notifications",
)

urlpatterns = [path("", include(f"apps.{app}.urls")) for app in APPS]
