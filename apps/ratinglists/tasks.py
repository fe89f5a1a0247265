"""The Celery task of the rating-list import job: a thin wrapper around
``importing.run_import`` (acknowledged after it ran; a task that fails for good fails the
job, nothing written)."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError
from django.utils.translation import gettext_lazy as _

from . import importing
from .models import RatingListImportJob


# The stubs' shared_task takes other task options (on_failure) only with base=.
@shared_task(  # type: ignore[call-overload]
    on_failure=RatingListImportJob.failure_hook(
        _("The import stopped on an error; nothing was written. Start the import again.")
    ),
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    max_retries=3,
    soft_time_limit=600,
    time_limit=660,
)
def run_rating_list_import(job_id: int) -> str:
    return importing.run_import(job_id)
