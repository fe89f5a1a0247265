"""API routes of the players app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from . import registration_api_urls
from .api import PlayerProfileView

urlpatterns = [
    *registration_api_urls.urlpatterns,
    path("players/<id:person_id>/", PlayerProfileView.as_view(), name="api-player-profile"),
]
