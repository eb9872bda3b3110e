"""Sori's Celery app with the test job kind of tests/fakes/counted_job.py loaded too, for tests that start a
real worker process: `celery -A tests.fakes.job_worker worker`."""

from workers.celery import app

# Imported by the worker once Django is set up (a job handler module needs the models).
app.conf.imports = ["tests.fakes.counted_job"]

__all__ = ["app"]
