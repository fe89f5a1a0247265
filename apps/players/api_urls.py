"""API routes of the players app (included under /api/ by ``config/api_urls.py``)."""

from . import registration_api_urls

urlpatterns = [*registration_api_urls.urlpatterns]
