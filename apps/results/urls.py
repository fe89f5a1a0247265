"""Page routes of the results app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import GROUP, STAGE

from . import game_views, views

GAME = GROUP + "games/<id:game_number>/"

urlpatterns = [
    path(GAME, game_views.game, name="game"),
    path(GAME + "report/", game_views.report, name="game-report"),
    path(GAME + "reports/<id:report_id>/confirm/", game_views.confirm, name="game-report-confirm"),
    path(GAME + "reports/<id:report_id>/dispute/", game_views.dispute, name="game-report-dispute"),
    path(GROUP + "td/", views.director, name="group-td"),
    path(GROUP + "results/", views.results, name="group-results"),
    path(GROUP + "results/game/<id:game_number>/", views.game_result, name="game-result"),
    path(GROUP + "results/withdraw/", views.withdraw, name="group-withdraw"),
    path(GROUP + "results/import/", views.group_import_preview, name="group-results-import"),
    path(
        GROUP + "results/import/confirm/",
        views.group_import_confirm,
        name="group-results-import-confirm",
    ),
    path(
        GROUP + "results/imports/<id:job_id>/",
        views.group_import_job,
        name="group-results-import-job",
    ),
    path(
        GROUP + "results/imports/<id:job_id>/confirm/",
        views.group_import_job_confirm,
        name="group-results-import-job-confirm",
    ),
    path(STAGE + "results/import/", views.stage_import_preview, name="stage-results-import"),
    path(
        STAGE + "results/import/confirm/",
        views.stage_import_confirm,
        name="stage-results-import-confirm",
    ),
    path(
        STAGE + "results/imports/<id:job_id>/",
        views.stage_import_job,
        name="stage-results-import-job",
    ),
    path(
        STAGE + "results/imports/<id:job_id>/confirm/",
        views.stage_import_job_confirm,
        name="stage-results-import-job-confirm",
    ),
]
