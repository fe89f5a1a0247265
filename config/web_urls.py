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
    "ratinglists",
    "play",
    "notifications",
    "players",
)

urlpatterns = [
    *(path("", include(f"apps.{app}.urls")) for app in APPS),
    path("", include("apps.play.leave_urls")),
]
