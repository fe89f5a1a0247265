"""What pages and the API show of rating lists and their jobs (shared by views and api)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.jobs import percent_done
from apps.stages.models import Stage

from .models import RatingList, RatingListImportJob, StageRatingList


def list_json(rating_list: RatingList) -> dict:
    return {
        "id": rating_list.pk,
        "url": reverse("api-rating-list", args=[rating_list.pk]),
        "name": rating_list.name,
        "list_date": rating_list.list_date.isoformat(),
        "source": rating_list.source,
        "entries": rating_list.entry_count,
        "created_at": rating_list.created_at.isoformat(),
    }


def percent(job: RatingListImportJob) -> int:
    succeeded = job.status == RatingListImportJob.Status.SUCCEEDED
    if job.phase == RatingListImportJob.Phase.SAVING and not succeeded:
        return 90
    share = 100 if job.dry_run else 80
    return percent_done(job.done_rows, job.total_rows, succeeded, share=share)


def job_progress(job: RatingListImportJob) -> dict:
    """A job's progress and outcome (the preview, or the list written, or every bad row)."""
    return {
        "id": job.pk,
        "url": reverse("api-rating-list-job", args=[job.pk]),
        "name": job.name,
        "list_date": job.list_date.isoformat(),
        "dry_run": job.dry_run,
        "status": job.status,
        "status_display": str(RatingListImportJob.Status(job.status).label),
        "phase": job.phase,
        "total_rows": job.total_rows,
        "done_rows": job.done_rows,
        "percent": percent(job),
        "error": job.error,
        "details": job.details,
        "result": job.result,
        "rating_list": job.rating_list_id,
        "finished": job.finished,
    }


def stage_list_used(stage: Stage) -> StageRatingList | None:
    """The rating list the stage's entrants took their ratings from, if any."""
    return StageRatingList.objects.filter(stage_id=stage.pk).select_related("rating_list").first()


def ratings_from(used: StageRatingList | None) -> str:
    """'Ratings from ICCF list 2026/4 (2026-10-01)', or '' when the stage used no list."""
    if used is None:
        return ""
    return _("Ratings from %(name)s (%(date)s)") % {
        "name": used.rating_list.name,
        "date": used.rating_list.list_date.isoformat(),
    }


def used_json(used: StageRatingList | None) -> dict:
    """Which list a stage used (``rating_list`` null and ``text`` empty: none)."""
    if used is None:
        return {
            "rating_list": None,
            "text": "",
            "applied_at": None,
            "matched": 0,
            "updated": 0,
            "missing": 0,
        }
    return {
        "rating_list": list_json(used.rating_list),
        "text": ratings_from(used),
        "applied_at": used.applied_at.isoformat(),
        "matched": used.matched,
        "updated": used.updated,
        "missing": used.missing,
    }
