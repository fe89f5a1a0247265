"""API routes of rating lists, rating reports and norms (included under /api/)."""

from django.urls import path

from . import api

urlpatterns = [
    path("rating-lists/", api.RatingListsView.as_view(), name="api-rating-lists"),
    path("rating-lists/<id:pk>/", api.RatingListView.as_view(), name="api-rating-list"),
    path("rating-list-jobs/<id:pk>/", api.RatingListJobView.as_view(), name="api-rating-list-job"),
    path(
        "stages/<id:pk>/rating-list/",
        api.StageRatingListView.as_view(),
        name="api-stage-rating-list",
    ),
    path(
        "groups/<id:pk>/rating-report/",
        api.GroupRatingReportView.as_view(),
        name="api-group-rating-report",
    ),
    path(
        "stages/<id:pk>/rating-report/",
        api.StageRatingReportView.as_view(),
        name="api-stage-rating-report",
    ),
    path("groups/<id:pk>/norms/", api.GroupNormsView.as_view(), name="api-group-norms"),
]
