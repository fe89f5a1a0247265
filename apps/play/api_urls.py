"""API routes of play on the server (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    AddDaysView,
    ClaimView,
    ConditionalsView,
    DrawAcceptView,
    DrawDeclineView,
    DrawOfferView,
    LongThinkView,
    MovesView,
    PlayView,
    ResignView,
)

urlpatterns = [
    path("games/<id:pk>/play/", PlayView.as_view(), name="api-game-play"),
    path("games/<id:pk>/moves/", MovesView.as_view(), name="api-game-moves"),
    path("games/<id:pk>/draw-offer/", DrawOfferView.as_view(), name="api-game-draw-offer"),
    path("games/<id:pk>/draw-accept/", DrawAcceptView.as_view(), name="api-game-draw-accept"),
    path("games/<id:pk>/draw-decline/", DrawDeclineView.as_view(), name="api-game-draw-decline"),
    path("games/<id:pk>/resign/", ResignView.as_view(), name="api-game-resign"),
    path("games/<id:pk>/long-think/", LongThinkView.as_view(), name="api-game-long-think"),
    path("games/<id:pk>/claim/", ClaimView.as_view(), name="api-game-claim"),
    path("games/<id:pk>/conditionals/", ConditionalsView.as_view(), name="api-game-conditionals"),
    path("games/<id:pk>/add-days/", AddDaysView.as_view(), name="api-game-add-days"),
]
