"""Page routes of registration by players (``urls.py`` includes them)."""

from django.urls import path

from apps.stages.pages import STAGE

from . import registration_views as views

urlpatterns = [
    path(STAGE + "register/", views.register, name="stage-register"),
    path(STAGE + "registrations/", views.requests_page, name="stage-registrations"),
    path("me/registrations/", views.my_registrations, name="my-registrations"),
    path(
        "me/registrations/<id:registration_id>/withdraw/",
        views.withdraw,
        name="registration-withdraw",
    ),
]
