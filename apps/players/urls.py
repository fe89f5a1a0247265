"""Page routes of the players app (included by ``config/web_urls.py``): registration by players
and people's profiles."""

from django.urls import path

from . import registration_urls, views

urlpatterns = [
    *registration_urls.urlpatterns,
    path("players/me/", views.profile_mine, name="player-profile-mine"),
    path("players/<id:person_id>/", views.profile, name="player-profile"),
]
