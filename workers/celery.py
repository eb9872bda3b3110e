"""The Celery app. Broker and policies come from Django settings (CELERY_*). Every module in this package
is a task module; tasks stay thin and call app services.

Run a worker:  celery -A workers worker --loglevel=INFO
Run beat:      celery -A workers beat --loglevel=INFO
"""

import os
import pkgutil
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

_task_modules = [
    f"workers.{m.name}" for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name != "celery"
]

app = Celery("sori", include=_task_modules)
app.config_from_object("django.conf:settings", namespace="CELERY")

# Periodic work lives here, in one place (see workers/*.py for the tasks it names).
app.conf.beat_schedule = {
    # Expired leases never block a slot, but relabelling them keeps the queues' admin views honest.
    "expire-stale-leases": {"task": "sori.queues.expire_stale_leases", "schedule": 300.0},
}
