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
    path("stages/<int:pk>/close/", CloseStageView.as_view(), name="api-stage-close"),
    path(
        "stages/<int:pk>/adjudication/",
        AdjudicationView.as_view(),
        name="api-stage-adjudication",
    ),
    path(
        "stages/<int:pk>/qualification/",
        QualificationView.as_view(),
        name="api-stage-qualification",
    ),
    path(
        "stages/<int:pk>/qualification/rule/",
        QualificationRuleView.as_view(),
        name="api-stage-qualification-rule",
    ),
    path(
        "stages/<int:pk>/qualification/prequalified/",
        PrequalifiedView.as_view(),
        name="api-stage-qualification-prequalified",
    ),
    path(
        "stages/<int:pk>/qualification/declined/",
        DeclineView.as_view(),
        name="api-stage-qualification-declined",
    ),
    path(
        "stages/<int:pk>/qualification/confirm/",
        ConfirmView.as_view(),
        name="api-stage-qualification-confirm",
    ),
    path("groups/<int:pk>/close/", CloseGroupView.as_view(), name="api-group-close"),
    path("groups/<int:pk>/reopen/", ReopenGroupView.as_view(), name="api-group-reopen"),
]
