"""Page routes of a player's leave: the "Leave" section of "My games" posts here."""

from django.urls import path

from . import leave_views

urlpatterns = [
    path("me/leave/", leave_views.take, name="me-leave"),
    path("me/leave/<id:leave_id>/cancel/", leave_views.cancel, name="me-leave-cancel"),
]
