"""API routes of the qualification app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    AdjudicationView,
    CloseGroupView,
    CloseStageView,
    ConfirmView,
    DeclineView,
    PrequalifiedView,
    QualificationRuleView,
    QualificationView,
    ReopenGroupView,
)

urlpatterns = [
    path("stages/<id:pk>/close/", CloseStageView.as_view(), name="api-stage-close"),
    path(
        "stages/<id:pk>/adjudication/",
        AdjudicationView.as_view(),
        name="api-stage-adjudication",
    ),
    path(
        "stages/<id:pk>/qualification/",
        QualificationView.as_view(),
        name="api-stage-qualification",
    ),
    path(
        "stages/<id:pk>/qualification/rule/",
        QualificationRuleView.as_view(),
        name="api-stage-qualification-rule",
    ),
    path(
        "stages/<id:pk>/qualification/prequalified/",
        PrequalifiedView.as_view(),
        name="api-stage-qualification-prequalified",
    ),
    path(
        "stages/<id:pk>/qualification/declined/",
        DeclineView.as_view(),
        name="api-stage-qualification-declined",
    ),
    path(
        "stages/<id:pk>/qualification/confirm/",
        ConfirmView.as_view(),
        name="api-stage-qualification-confirm",
    ),
    path("groups/<id:pk>/close/", CloseGroupView.as_view(), name="api-group-close"),
    path("groups/<id:pk>/reopen/", ReopenGroupView.as_view(), name="api-group-reopen"),
]
