"""API routes of a player's leave (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .leave_api import MyLeaveItemView, MyLeaveView

urlpatterns = [
    path("me/leave/", MyLeaveView.as_view(), name="api-me-leave"),
    path("me/leave/<id:pk>/", MyLeaveItemView.as_view(), name="api-me-leave-item"),
]
