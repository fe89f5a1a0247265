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
    StageResultImportView,
    WithdrawalView,
)
from .downloads import GamePgnView, GroupGamesPgnView, StageGamesPgnView

urlpatterns = [
    path("games/<int:pk>/", GameView.as_view(), name="api-game"),
    path("games/<int:pk>/result/", GameResultView.as_view(), name="api-game-result"),
    path("games/<int:pk>/reports/", GameReportsView.as_view(), name="api-game-reports"),
    path(
        "games/<int:pk>/reports/<int:report_id>/confirm/",
        ReportConfirmView.as_view(),
        name="api-game-report-confirm",
    ),
    path(
        "games/<int:pk>/reports/<int:report_id>/dispute/",
        ReportDisputeView.as_view(),
        name="api-game-report-dispute",
    ),
    path("games/<int:pk>/pgn", GamePgnView.as_view(), name="api-game-pgn"),
    path("groups/<int:pk>/games.pgn", GroupGamesPgnView.as_view(), name="api-group-games-pgn"),
    path("stages/<int:pk>/games.pgn", StageGamesPgnView.as_view(), name="api-stage-games-pgn"),
    path("groups/<int:pk>/td/", GroupDirectorView.as_view(), name="api-group-td"),
    path(
        "groups/<int:pk>/results/import/",
        GroupResultImportView.as_view(),
        name="api-group-results-import",
    ),
    path(
        "stages/<int:pk>/results/import/",
        StageResultImportView.as_view(),
        name="api-stage-results-import",
    ),
    path("stages/<int:pk>/withdrawals/", WithdrawalView.as_view(), name="api-stage-withdrawals"),
]
