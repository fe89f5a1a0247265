"""The draw job against real services: PostgreSQL, Redis and a Celery worker process."""
