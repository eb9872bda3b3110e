"""The generic job task: every long job (apps.jobs) runs through it, whatever app it belongs to."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from apps.jobs.services import run_job


@shared_task(name="sori.run_job", acks_late=True, ignore_result=True, throws=(SoftTimeLimitExceeded,))
def run_job_task(job_id: int) -> None:
    # run_job claims the row (queued -> running) so a redelivered message never runs a job twice.
    run_job(job_id)
