"""Page routes of the qualification app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import GROUP, STAGE

from . import views

urlpatterns = [
    path(GROUP + "close/", views.group_close, name="group-close"),
    path(GROUP + "reopen/", views.group_reopen, name="group-reopen"),
    path(STAGE + "finish/", views.stage_finish, name="stage-finish"),
    path(STAGE + "adjudication/", views.stage_adjudication, name="stage-adjudication"),
    path(STAGE + "qualification/", views.qualification, name="stage-qualification"),
    path(
        STAGE + "qualification.csv",
        views.qualification_csv,
        name="stage-qualification-csv",
    ),
    path(
        STAGE + "qualification/rule/",
        views.qualification_rule,
        name="stage-qualification-rule",
    ),
    path(
        STAGE + "qualification/prequalify/",
        views.qualification_prequalify,
        name="stage-qualification-prequalify",
    ),
    path(
        STAGE + "qualification/decline/",
        views.qualification_decline,
        name="stage-qualification-decline",
    ),
    path(
        STAGE + "qualification/confirm/",
        views.qualification_confirm,
        name="stage-qualification-confirm",
    ),
]
