"""REST API routes (mounted at /api/)."""

from django.urls import path

from apps.stages.api import DrawJobProgressView

urlpatterns = [
    path("draw-jobs/<int:pk>/", DrawJobProgressView.as_view(), name="api-draw-job"),
]
