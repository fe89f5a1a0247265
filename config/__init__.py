# Loading the Celery app with Django makes @shared_task bind to it.
from .celery import app as celery_app

__all__ = ("celery_app",)
