"""Job handlers of the evaluation app (run by apps.jobs in a worker, or in-process in the embedded mode): the
collection of a model's responses, the evaluation of a run, and its re-scoring under one reading profile. A job
that stops (fails, is cancelled) leaves the run marked as needing attention with the reason; running it again
resumes."""

from apps.evaluation import collection, services
from apps.evaluation.models import RunStatus
from apps.evaluation.status import needs_attention, set_status
from apps.jobs.services import JobCancelled, LeaseLost, job_handler


def _marking_the_run(body, job, progress) -> dict:
    try:
        return body(job, progress)
    except LeaseLost:
        raise  # another run holds the job now; the run's state is its to write
    except JobCancelled:
        needs_attention(job.params["run"], f"job {job.pk} was cancelled; resume it to go on")
        raise
    except Exception as exc:
        needs_attention(job.params["run"], f"job {job.pk} failed: {exc}")
        raise


@job_handler(services.COLLECT_JOB)
def collect(job, progress):
    set_status(job.params["run"], RunStatus.COLLECTING)
    return _marking_the_run(collection.run_collection, job, progress)


@job_handler(services.EVALUATE_JOB)
def evaluate(job, progress):
    set_status(job.params["run"], RunStatus.EVALUATING)
    return _marking_the_run(services.run_evaluation, job, progress)


@job_handler(services.RESCORE_JOB)
def rescore(job, progress):
    set_status(job.params["run"], RunStatus.EVALUATING)
    return _marking_the_run(services.run_rescoring, job, progress)
