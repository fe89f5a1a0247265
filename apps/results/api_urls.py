"""API routes of the results app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    GameReportsView,
    GameResultView,
    GameView,
    GroupDirectorView,
    GroupResultImportView,
    ReportConfirmView,
    ReportDisputeView,
    ResultImportJobView,
    StageResultImportView,
    WithdrawalView,
)
from .downloads import GamePgnView, GroupGamesPgnView, StageGamesPgnView

urlpatterns = [
    path("games/<id:pk>/", GameView.as_view(), name="api-game"),
    path("games/<id:pk>/result/", GameResultView.as_view(), name="api-game-result"),
    path("games/<id:pk>/reports/", GameReportsView.as_view(), name="api-game-reports"),
    path(
        "games/<id:pk>/reports/<id:report_id>/confirm/",
        ReportConfirmView.as_view(),
        name="api-game-report-confirm",
    ),
    path(
        "games/<id:pk>/reports/<id:report_id>/dispute/",
        ReportDisputeView.as_view(),
        name="api-game-report-dispute",
    ),
    path("games/<id:pk>/pgn", GamePgnView.as_view(), name="api-game-pgn"),
    path("groups/<id:pk>/games.pgn", GroupGamesPgnView.as_view(), name="api-group-games-pgn"),
    path("stages/<id:pk>/games.pgn", StageGamesPgnView.as_view(), name="api-stage-games-pgn"),
    path("groups/<id:pk>/td/", GroupDirectorView.as_view(), name="api-group-td"),
    path(
        "groups/<id:pk>/results/import/",
        GroupResultImportView.as_view(),
        name="api-group-results-import",
    ),
    path(
        "stages/<id:pk>/results/import/",
        StageResultImportView.as_view(),
        name="api-stage-results-import",
    ),
    path(
        "results-import-jobs/<id:pk>/",
        ResultImportJobView.as_view(),
        name="api-results-import-job",
    ),
    path("stages/<id:pk>/withdrawals/", WithdrawalView.as_view(), name="api-stage-withdrawals"),
]
