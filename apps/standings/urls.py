"""Page routes of the standings app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import GROUP, STAGE

from . import views

urlpatterns = [
    path("t/<slug:slug>/find/", views.find_player, name="find-player"),
    path(GROUP + "standings/", views.group_standings, name="group-standings"),
    path(GROUP + "crosstable/", views.group_crosstable, name="group-crosstable"),
    path(GROUP + "standings.csv", views.group_standings_csv, name="group-standings-csv"),
    path(GROUP + "crosstable.csv", views.group_crosstable_csv, name="group-crosstable-csv"),
    path(GROUP + "group.trf", views.group_trf_file, name="group-trf"),
    path(GROUP + "pairings.csv", views.group_pairings_csv, name="group-pairings-csv"),
    path(
        GROUP + "rounds/<id:round_number>/pairings.csv",
        views.group_round_pairings_csv,
        name="group-round-pairings-csv",
    ),
    path(STAGE + "ranking/", views.stage_ranking_page, name="stage-ranking"),
    path(STAGE + "ranking.csv", views.stage_ranking_csv, name="stage-ranking-csv"),
]
