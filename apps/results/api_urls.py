"""API routes of the results app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    GameResultView,
    GameView,
    GroupDirectorView,
    GroupResultImportView,
    StageResultImportView,
    WithdrawalView,
)

urlpatterns = [
    path("games/<int:pk>/", GameView.as_view(), name="api-game"),
    path("games/<int:pk>/result/", GameResultView.as_view(), name="api-game-result"),
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
