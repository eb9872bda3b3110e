"""The Celery app. Broker and policies come from Django settings (CELERY_*). Every module in this package
is a task module; tasks stay thin and call app services.

Run a worker:  celery -A workers worker --loglevel=INFO
Run beat:      celery -A workers beat --loglevel=INFO
"""

import os
import pkgutil
from pathlib import Path

from celery import Celery
from django.conf import settings

from apps.jobs.dispatch import register_celery_sender

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

_task_modules = [
    f"workers.{m.name}" for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name != "celery"
]

app = Celery("sori", include=_task_modules)
app.config_from_object("django.conf:settings", namespace="CELERY")

# apps.jobs sends jobs through this hook and never imports this package (workers imports apps, not back).
register_celery_sender(lambda job_id: app.send_task("sori.run_job", args=[job_id]))


@app.on_after_configure.connect
def _schedule(sender, **_):
    """Periodic work lives here, in one place (see workers/*.py for the tasks it names). Set once the app is
    configured: the intervals are Django settings, which load after this module (config imports it)."""
    sender.conf.beat_schedule = {
        # Expired leases never block a slot, but relabelling them keeps the queues' admin views honest.
        "expire-stale-leases": {"task": "sori.queues.expire_stale_leases", "schedule": 300.0},
        # A job whose worker died (its lease ran out) is queued again and resumes from its last saved point.
        "reclaim-lost-jobs": {"task": "sori.jobs.reclaim_lost", "schedule": float(settings.JOB_RECLAIM_SECONDS)},
        # Files no asset names (a killed import's) are removed; assets whose file is missing or wrong are logged.
        "audit-audio-storage": {"task": "sori.audio.audit_storage", "schedule": float(settings.AUDIO_AUDIT_SECONDS)},
    }
