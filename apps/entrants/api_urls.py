"""API routes of the entrants app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    EntrantImportView,
    ImportJobView,
    StageEntrantCsvView,
    StageEntrantListView,
    StageEntrantView,
)

urlpatterns = [
    path(
        "stages/<id:pk>/entrants/",
        StageEntrantListView.as_view(),
        name="api-stage-entrants",
    ),
    path(
        "stages/<id:pk>/entrants.csv",
        StageEntrantCsvView.as_view(),
        name="api-stage-entrants-csv",
    ),
    path(
        "stages/<id:pk>/entrants/import/",
        EntrantImportView.as_view(),
        name="api-stage-entrants-import",
    ),
    path("import-jobs/<id:pk>/", ImportJobView.as_view(), name="api-import-job"),
    # After the import: the import's address also serves an entrant whose code is "import".
    # Any code can be addressed, even one from before the code rules ("A/1").
    path(
        "stages/<id:pk>/entrants/<path:code>/",
        StageEntrantView.as_view(),
        name="api-stage-entrant",
    ),
]
