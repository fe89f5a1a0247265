"""Page routes of the players app (included by ``config/web_urls.py``)."""

from . import registration_urls

urlpatterns = [*registration_urls.urlpatterns]
