"""Job handlers of the speech stage. Samples are independent: with SPEECH_DISPATCH=celery each is a task on
the `speech` queue (any number of speech workers share a run) and the job only reports their progress;
inline, the job synthesizes them in its own threads."""

import time

from celery import current_app
from django.conf import settings
from django.urls import reverse

from apps.jobs.models import ATTENTION_KEY
from apps.jobs.services import job_handler, needing_attention, results_in_parallel
from apps.speech import services
from apps.speech.models import SampleStatus, SampleSynthesis, SynthesisRun


@job_handler(services.RUN_JOB)
def synthesize_run(job, progress):
    run = SynthesisRun.objects.get(pk=job.params["run_id"])
    return _synthesize(progress, run.samples.all())


@job_handler(services.RERUN_JOB)
def rerun_samples(job, progress):
    return _synthesize(progress, SampleSynthesis.objects.filter(pk__in=job.params["synthesis_ids"]))


def _synthesize(progress, samples) -> dict:
    progress.set_total(samples.count(), "Synthesizing")
    pending = list(samples.filter(status=SampleStatus.PENDING).order_by("pk").values_list("pk", flat=True))
    if settings.SPEECH_DISPATCH == "celery":
        for pk in pending:
            # The Sori app (config loads it with Django); apps never import the workers package.
            current_app.send_task("sori.speech.synthesize_sample", args=[pk])
        while True:
            finished = samples.exclude(status=SampleStatus.PENDING).count()
            progress.set_done(finished, f"{finished} of {progress.job.total} samples done")
            if finished >= progress.job.total:
                break
            time.sleep(settings.SPEECH_POLL_SECONDS)
    else:
        for _pk, _status in results_in_parallel(pending, services.synthesize_sample, workers=settings.SPEECH_WORKERS,
                                                name="speech"):
            finished = samples.exclude(status=SampleStatus.PENDING).count()
            progress.set_done(finished, f"{finished} of {progress.job.total} samples done")
    counts = {status: samples.filter(status=status).count() for status in SampleStatus.values}
    result = {k: v for k, v in counts.items() if v}
    attention = samples.filter(status=SampleStatus.NEEDS_ATTENTION)
    run_id = attention.values_list("run_id", flat=True).first()
    if run_id is not None:
        url = reverse("speech:run", args=[run_id]) + f"?status={SampleStatus.NEEDS_ATTENTION}"
        result[ATTENTION_KEY] = needing_attention(attention.count(), url)
    return result
