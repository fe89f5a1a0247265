"""Page routes of the players app (included by ``config/web_urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("players/me/", views.profile_mine, name="player-profile-mine"),
    path("players/<id:person_id>/", views.profile, name="player-profile"),
]
