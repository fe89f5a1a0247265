"""API routes of the standings app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    GroupCrosstableView,
    GroupRoundView,
    GroupStandingsView,
    StageRankingView,
    StageRecomputeView,
)

urlpatterns = [
    path("groups/<id:pk>/standings/", GroupStandingsView.as_view(), name="api-group-standings"),
    path(
        "groups/<id:pk>/crosstable/",
        GroupCrosstableView.as_view(),
        name="api-group-crosstable",
    ),
    path(
        "groups/<id:pk>/rounds/<id:round_number>/",
        GroupRoundView.as_view(),
        name="api-group-round",
    ),
    path("stages/<id:pk>/ranking/", StageRankingView.as_view(), name="api-stage-ranking"),
    path("stages/<id:pk>/recompute/", StageRecomputeView.as_view(), name="api-stage-recompute"),
]
