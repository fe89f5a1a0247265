"""REST API routes (mounted at /api/): each app owns its own (``apps/<app>/api_urls.py``); this
module includes them, then the ReDoc page and, last, the catch-all that answers any other
/api/ address with 404 in the API's error format. The schema is at /api/schema/, the docs at
/api/docs/."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularRedocView

from apps.core.api import EndpointNotFoundView

APPS = (
    "accounts",
    "entrants",
    "groups",
    "notifications",
    "office",
    "play",
    "qualification",
    "results",
    "standings",
)

urlpatterns = [
    *(path("", include(f"apps.{app}.api_urls")) for app in APPS),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    # Last: any other /api/ address answers 404 in the API's error format.
    re_path(r"^", EndpointNotFoundView.as_view(), name="api-not-found"),
]
