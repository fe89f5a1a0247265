"""Page routes of the play app (included by ``config/web_urls.py``): the board of a game
played on this server, beside the game's page of the results app, and its actions' forms."""

from django.urls import path

from apps.stages.pages import GROUP

from . import views

BOARD = GROUP + "games/<id:game_number>/play/"

urlpatterns = [
    path(BOARD, views.board, name="game-play"),
    path(BOARD + "move/", views.move, name="game-play-move"),
    path(BOARD + "draw-offer/", views.draw_offer, name="game-play-draw-offer"),
    path(BOARD + "draw-accept/", views.draw_accept, name="game-play-draw-accept"),
    path(BOARD + "draw-decline/", views.draw_decline, name="game-play-draw-decline"),
    path(BOARD + "resign/", views.resign, name="game-play-resign"),
    path(BOARD + "long-think/", views.long_think, name="game-play-long-think"),
    path(BOARD + "claim/", views.claim, name="game-play-claim"),
    path(BOARD + "conditionals/", views.conditionals, name="game-play-conditionals"),
    path(
        BOARD + "conditionals/cancel/",
        views.conditionals_cancel,
        name="game-play-conditionals-cancel",
    ),
    path(BOARD + "add-days/", views.add_days, name="game-play-add-days"),
]
