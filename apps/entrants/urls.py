"""Page routes of the entrants app (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import STAGE

from . import views

urlpatterns = [
    path(STAGE + "import/", views.import_preview, name="stage-import"),
    path(STAGE + "import/confirm/", views.import_confirm, name="stage-import-confirm"),
    path(STAGE + "imports/<id:job_id>/", views.import_job, name="stage-import-job"),
    path(
        STAGE + "imports/<id:job_id>/confirm/",
        views.import_job_confirm,
        name="stage-import-job-confirm",
    ),
    path(STAGE + "entrants.csv", views.export_csv, name="stage-entrants-csv"),
    path(STAGE + "entrants/", views.entrant_list, name="stage-entrants"),
    # Any code can be addressed, even one from before the code rules ("A/1"): remove first.
    path(
        STAGE + "entrants/<path:code>/remove/",
        views.entrant_remove,
        name="stage-entrant-remove",
    ),
    path(STAGE + "entrants/<path:code>/", views.entrant_edit, name="stage-entrant-edit"),
]
