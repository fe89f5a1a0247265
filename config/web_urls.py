"""HTML page routes."""

from django.contrib.auth import views as auth_views
from django.urls import path

from apps.entrants import views as entrants
from apps.groups import views as groups
from apps.stages import views as stages

STAGE = "t/<slug:slug>/s/<int:order>/"

urlpatterns = [
    path("", stages.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="logout"),
    path("t/<slug:slug>/", stages.tournament, name="tournament"),
    path("t/<slug:slug>/find/", groups.find_player, name="find-player"),
    path(STAGE, stages.stage, name="stage"),
    path(STAGE + "g/<int:number>/", groups.group, name="group"),
    path(STAGE + "manage/", stages.manage, name="stage-manage"),
    path(STAGE + "close/", stages.close, name="stage-close"),
    path(STAGE + "reopen/", stages.reopen, name="stage-reopen"),
    path(STAGE + "draw/", stages.draw, name="stage-draw"),
    path(STAGE + "draw/<int:job_id>/", stages.draw_progress, name="draw-progress"),
    path(STAGE + "publish/", stages.publish, name="stage-publish"),
    path(STAGE + "import/", entrants.import_preview, name="stage-import"),
    path(STAGE + "import/confirm/", entrants.import_confirm, name="stage-import-confirm"),
    path(STAGE + "entrants.csv", entrants.export_csv, name="stage-entrants-csv"),
    path(STAGE + "files/<str:name>", stages.published_file, name="stage-file"),
]
