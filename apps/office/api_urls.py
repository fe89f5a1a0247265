"""API routes of the office app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from .api import (
    CancelDrawView,
    CloseRegistrationView,
    DrawJobProgressView,
    DrawView,
    LabRunsView,
    LabRunView,
    LateEntrantsView,
    NextRoundView,
    PublicationProgressView,
    PublishView,
    ReopenRegistrationView,
    StageViewSet,
    TournamentViewSet,
)

router = SimpleRouter()
router.register("tournaments", TournamentViewSet, basename="api-tournament")
router.register("stages", StageViewSet, basename="api-stage")

urlpatterns = [
    *router.urls,
    path(
        "stages/<int:pk>/close-registration/",
        CloseRegistrationView.as_view(),
        name="api-stage-close-registration",
    ),
    path(
        "stages/<int:pk>/reopen-registration/",
        ReopenRegistrationView.as_view(),
        name="api-stage-reopen-registration",
    ),
    path("stages/<int:pk>/draw/", DrawView.as_view(), name="api-stage-draw"),
    path("stages/<int:pk>/draw/cancel/", CancelDrawView.as_view(), name="api-stage-draw-cancel"),
    path("stages/<int:pk>/publish/", PublishView.as_view(), name="api-stage-publish"),
    path(
        "stages/<int:pk>/publication/",
        PublicationProgressView.as_view(),
        name="api-stage-publication",
    ),
    path("stages/<int:pk>/next-round/", NextRoundView.as_view(), name="api-stage-next-round"),
    path(
        "stages/<int:pk>/late-entrants/", LateEntrantsView.as_view(), name="api-stage-late-entrants"
    ),
    path("draw-jobs/<int:pk>/", DrawJobProgressView.as_view(), name="api-draw-job"),
    path("stages/<int:pk>/lab-runs/", LabRunsView.as_view(), name="api-stage-lab-runs"),
    path("lab-runs/<int:pk>/", LabRunView.as_view(), name="api-lab-run"),
]
