# The Celery app loads with Django, so every process (web, manage.py, worker) can send jobs to workers.
from workers.celery import app as celery_app

__all__ = ["celery_app"]
