"""Page routes of the notifications app (included by ``config/web_urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("me/notifications/", views.preferences, name="me-notifications"),
]
