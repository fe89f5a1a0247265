"""Page routes of the office app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import GROUP, STAGE

from . import views
from .swiss import views as swiss_views

urlpatterns = [
    path("", views.home, name="home"),
    path("tournaments/new/", views.tournament_new, name="tournament-new"),
    path("t/<slug:slug>/", views.tournament, name="tournament"),
    path("t/<slug:slug>/settings/", views.tournament_edit, name="tournament-edit"),
    path("t/<slug:slug>/stages/new/", views.stage_new, name="stage-new"),
    path(STAGE, views.stage, name="stage"),
    path(STAGE + "settings/", views.stage_edit, name="stage-edit"),
    path(STAGE + "delete/", views.stage_delete, name="stage-delete"),
    path(STAGE + "manage/", views.manage, name="stage-manage"),
    path(STAGE + "close/", views.close, name="stage-close"),
    path(STAGE + "reopen/", views.reopen, name="stage-reopen"),
    path(STAGE + "draw/", views.draw, name="stage-draw"),
    path(STAGE + "draw/<id:job_id>/", views.draw_progress, name="draw-progress"),
    path(STAGE + "draw/cancel/", views.draw_cancel, name="stage-draw-cancel"),
    path(STAGE + "publish/", views.publish, name="stage-publish"),
    path(STAGE + "next-round/", views.next_round, name="stage-next-round"),
    path(STAGE + "late-entrants/", views.late_entrant, name="stage-late-entrant"),
    path(GROUP + "rounds/", swiss_views.rounds, name="group-rounds"),
    path(GROUP + "rounds/<id:round_number>/", swiss_views.round_page, name="group-round"),
    path(STAGE + "publish/progress/", views.publication_progress, name="publication-progress"),
    path(STAGE + "files/<str:name>", views.published_file, name="stage-file"),
    path(STAGE + "lab/", views.lab, name="stage-lab"),
    path(STAGE + "lab/<id:run_id>/", views.lab_run, name="stage-lab-run"),
    path(
        STAGE + "lab/<id:run_id>/apply/<id:candidate>/",
        views.lab_apply,
        name="stage-lab-apply",
    ),
]
