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
        "stages/<id:pk>/close-registration/",
        CloseRegistrationView.as_view(),
        name="api-stage-close-registration",
    ),
    path(
        "stages/<id:pk>/reopen-registration/",
        ReopenRegistrationView.as_view(),
        name="api-stage-reopen-registration",
    ),
    path("stages/<id:pk>/draw/", DrawView.as_view(), name="api-stage-draw"),
    path("stages/<id:pk>/draw/cancel/", CancelDrawView.as_view(), name="api-stage-draw-cancel"),
    path("stages/<id:pk>/publish/", PublishView.as_view(), name="api-stage-publish"),
    path(
        "stages/<id:pk>/publication/",
        PublicationProgressView.as_view(),
        name="api-stage-publication",
    ),
    path("stages/<id:pk>/next-round/", NextRoundView.as_view(), name="api-stage-next-round"),
    path(
        "stages/<id:pk>/late-entrants/", LateEntrantsView.as_view(), name="api-stage-late-entrants"
    ),
    path("draw-jobs/<id:pk>/", DrawJobProgressView.as_view(), name="api-draw-job"),
    path("stages/<id:pk>/lab-runs/", LabRunsView.as_view(), name="api-stage-lab-runs"),
    path("lab-runs/<id:pk>/", LabRunView.as_view(), name="api-lab-run"),
]
