"""Page routes of the results app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import GROUP

from . import views

urlpatterns = [
    path(GROUP + "td/", views.director, name="group-td"),
    path(GROUP + "results/", views.results, name="group-results"),
    path(GROUP + "results/game/<int:game_number>/", views.game_result, name="game-result"),
    path(GROUP + "results/withdraw/", views.withdraw, name="group-withdraw"),
]
