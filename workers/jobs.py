"""The generic job task: every long job (apps.jobs) runs through it, whatever app it belongs to; and the
reclaim of jobs whose worker died, by beat and by every worker as it starts."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready

from apps.jobs.services import reclaim_lost_jobs, run_job


# Acknowledged only once the job has ended, and given back to the broker if the worker process dies, so no
# job is dropped; with prefetch 1 (settings) a busy worker holds no second job another worker could run.
# run_job claims the row, so a redelivered message never runs a job twice.
@shared_task(
    name="sori.run_job", acks_late=True, reject_on_worker_lost=True, ignore_result=True,
    throws=(SoftTimeLimitExceeded,),
)
def run_job_task(job_id: int) -> None:
    run_job(job_id)


@shared_task(name="sori.jobs.reclaim_lost", acks_late=True, ignore_result=True)
def reclaim_lost_jobs_task() -> list[int]:
    return reclaim_lost_jobs()


@worker_ready.connect
def reclaim_on_start(**_) -> None:
    reclaim_lost_jobs()
