"""How a job reaches a Celery worker, registered by the Celery app when it is created (workers/celery.py), so
apps.jobs sends jobs without importing the `workers` package and the two never import each other. Kept free
of Django models: the Celery app is created while Django starts (config/__init__.py), before models load."""

from collections.abc import Callable

_send: Callable[[int], None] | None = None


def register_celery_sender(send: Callable[[int], None]) -> None:
    """`send(job_id)` queues the generic job task for that job."""
    global _send
    _send = send


def celery_sender() -> Callable[[int], None] | None:
    return _send
