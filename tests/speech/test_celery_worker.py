"""A run whose samples are Celery tasks on the `speech` queue, consumed by a real worker over Redis that
listens to that queue only: if the routing were wrong, nothing would consume them and the run would stall."""

import pytest

from apps.jobs.models import JobStatus
from apps.speech import services
from apps.speech.models import SampleStatus, SynthesisAttempt
from workers.celery import app


@pytest.fixture
def _restore_consumed_queues():
    """A worker started with queues=[...] narrows the app's own queue selection; later workers in this
    process (other tests) must consume the default queue again."""
    queues = app.amqp.queues
    saved = queues._consume_from
    yield
    queues._consume_from = saved


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_restore_consumed_queues")
def test_a_run_is_synthesized_by_a_worker_on_the_speech_queue(admin, voices, ready, fake_speech, settings):
    from celery.contrib.testing.worker import start_worker

    assert app.amqp.router.route({}, "sori.speech.synthesize_sample")["queue"].name == "speech"
    benchmark = ready()
    settings.SPEECH_DISPATCH = "celery"
    settings.SPEECH_POLL_SECONDS = 0.1
    fake_speech.mishear(times=1)
    with start_worker(app, pool="threads", concurrency=3, queues=["speech"], perform_ping_check=False,
                      shutdown_timeout=30):
        run = services.start_run(acting_user=admin, benchmark=benchmark)  # the job runs inline (sync)
    run.job.refresh_from_db()
    assert run.job.status == JobStatus.SUCCEEDED, run.job.error
    assert (run.job.done, run.job.total) == (6, 6)
    assert set(run.samples.values_list("status", flat=True)) == {SampleStatus.PASSED}
    attempts = [(a.synthesis_id, a.number, a.transcript) for a in SynthesisAttempt.objects.filter(synthesis__run=run)]
    assert len(attempts) == 7, attempts  # one sample misheard once
    assert fake_speech.max_in_flight["tts"] >= 1
