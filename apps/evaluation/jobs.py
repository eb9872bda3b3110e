"""Job handlers of the evaluation app (run by apps.jobs in a worker, or in-process in the embedded mode): the
collection of a model's responses, the evaluation of a run, and its re-scoring under one reading profile. A job
that stops (fails, is cancelled) leaves the run marked as needing attention with the reason; running it again
resumes."""

from apps.evaluation import collection, services
from apps.evaluation.models import EvaluationRun, RunStatus
from apps.jobs.services import JobCancelled, LeaseLost, job_handler


def _marking_the_run(body, job, progress) -> dict:
    try:
        return body(job, progress)
    except LeaseLost:
        raise  # another run holds the job now; the run's state is its to write
    except JobCancelled:
        EvaluationRun.objects.filter(pk=job.params["run"]).update(
            status=RunStatus.NEEDS_ATTENTION, attention_reason=f"job {job.pk} was cancelled; resume it to go on")
        raise
    except Exception as exc:
        EvaluationRun.objects.filter(pk=job.params["run"]).update(
            status=RunStatus.NEEDS_ATTENTION, attention_reason=f"job {job.pk} failed: {exc}"[:2000])
        raise


@job_handler(services.COLLECT_JOB)
def collect(job, progress):
    EvaluationRun.objects.filter(pk=job.params["run"]).update(status=RunStatus.COLLECTING, attention_reason="")
    return _marking_the_run(collection.run_collection, job, progress)


@job_handler(services.EVALUATE_JOB)
def evaluate(job, progress):
    EvaluationRun.objects.filter(pk=job.params["run"]).update(status=RunStatus.EVALUATING, attention_reason="")
    return _marking_the_run(services.run_evaluation, job, progress)


@job_handler(services.RESCORE_JOB)
def rescore(job, progress):
    EvaluationRun.objects.filter(pk=job.params["run"]).update(status=RunStatus.EVALUATING, attention_reason="")
    return _marking_the_run(services.run_rescoring, job, progress)
