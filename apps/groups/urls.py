"""Page routes of the groups app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import STAGE

from . import views

urlpatterns = [
    path(STAGE + "g/<id:number>/", views.group, name="group"),
]
