"""API routes of registration by players (``api_urls.py`` includes them)."""

from django.urls import path

from . import registration_api as api

urlpatterns = [
    path(
        "stages/<id:pk>/registrations/",
        api.StageRegistrationsView.as_view(),
        name="api-stage-registrations",
    ),
    path(
        "stages/<id:pk>/registrations/decide/",
        api.RegistrationDecideView.as_view(),
        name="api-stage-registrations-decide",
    ),
    path(
        "registrations/<id:pk>/withdraw/",
        api.RegistrationWithdrawView.as_view(),
        name="api-registration-withdraw",
    ),
]
