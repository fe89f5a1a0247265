"""API routes of the groups app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from .api import (
    GroupViewSet,
    PlayerSearchView,
)

router = SimpleRouter()
router.register("groups", GroupViewSet, basename="api-group")

urlpatterns = [
    *router.urls,
    path("players/", PlayerSearchView.as_view(), name="api-players"),
]
