"""Page routes of rating lists and rating reports (included by ``config/web_urls.py``)."""

from django.urls import path

from apps.stages.pages import GROUP, STAGE

from . import views

urlpatterns = [
    path("rating-lists/", views.rating_lists, name="rating-lists"),
    path("rating-lists/<id:list_id>/", views.rating_list, name="rating-list"),
    path("rating-lists/jobs/<id:job_id>/", views.rating_list_job, name="rating-list-job"),
    path(STAGE + "rating-list/", views.stage_rating_list, name="stage-rating-list"),
    path(STAGE + "rating-report/", views.stage_rating_report, name="stage-rating-report"),
    path(
        STAGE + "rating-report.csv", views.stage_rating_report_csv, name="stage-rating-report-csv"
    ),
    path(GROUP + "rating-report/", views.group_rating_report, name="group-rating-report"),
    path(
        GROUP + "rating-report.csv",
        views.group_rating_report_csv,
        name="group-rating-report-csv",
    ),
]
