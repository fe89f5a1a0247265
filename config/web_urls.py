"""HTML page routes."""

urlpatterns: list = []
