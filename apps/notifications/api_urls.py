"""API routes of the notifications app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    PreferencesView,
)

urlpatterns = [
    path("me/notifications/", PreferencesView.as_view(), name="api-me-notifications"),
]
