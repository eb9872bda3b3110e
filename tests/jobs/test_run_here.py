"""run_here(): a management command or the demo seeding runs the jobs it starts in its own process and waits
for them, whatever the configured runner, without changing the runner for any other thread."""

import threading

import pytest

from apps.jobs import services
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import job_handler, run_here, start_job


@job_handler("tests.run_here")
def _record_the_thread(job, progress):
    if job.params.get("then_start"):
        start_job(kind="tests.run_here", title="started by a job", params={})
    return {"thread": threading.current_thread().name}


@pytest.fixture
def celery_sends(settings, monkeypatch):
    """The configured runner is Celery; what it would queue is recorded instead of sent."""
    sent = []
    settings.JOB_RUNNER = "celery"
    monkeypatch.setattr(services, "celery_sender", lambda: sent.append)
    return sent


def test_a_job_started_inside_the_block_has_run_here_when_the_block_ends(db, celery_sends):
    # The test's transaction is still open: on-commit never fires, yet the job runs.
    with run_here():
        job = start_job(kind="tests.run_here", title="here", params={})
        assert Job.objects.get(pk=job.pk).status == JobStatus.QUEUED
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert job.result == {"thread": threading.current_thread().name}
    assert celery_sends == []


def test_a_job_that_a_job_started_here_starts_runs_here_too(db, celery_sends):
    with run_here():
        start_job(kind="tests.run_here", title="first", params={"then_start": True})
    assert list(Job.objects.order_by("pk").values_list("status", flat=True)) == [JobStatus.SUCCEEDED] * 2
    assert celery_sends == []


def test_a_block_that_raises_runs_nothing(db, celery_sends):
    with pytest.raises(RuntimeError), run_here():
        job = start_job(kind="tests.run_here", title="refused later", params={})
        raise RuntimeError("the command failed after the start")
    assert Job.objects.get(pk=job.pk).status == JobStatus.QUEUED


def test_after_the_block_jobs_go_to_the_configured_runner_again(db, celery_sends, django_capture_on_commit_callbacks):
    with run_here():
        start_job(kind="tests.run_here", title="here", params={})
    with django_capture_on_commit_callbacks(execute=True):
        queued = start_job(kind="tests.run_here", title="queued", params={})
    assert celery_sends == [queued.pk] and Job.objects.get(pk=queued.pk).status == JobStatus.QUEUED


@pytest.mark.django_db(transaction=True)
def test_another_thread_keeps_the_configured_runner_while_a_block_is_open(celery_sends):
    """The old way (settings.JOB_RUNNER = "sync" in the command) switched the runner for the whole process."""
    inside, outside = threading.Event(), threading.Event()
    started_elsewhere = []

    def elsewhere():
        inside.wait(10)
        try:
            started_elsewhere.append(start_job(kind="tests.run_here", title="elsewhere", params={}))
        finally:
            from django.db import connection

            connection.close()
            outside.set()

    other = threading.Thread(target=elsewhere)
    other.start()
    with run_here():
        here = start_job(kind="tests.run_here", title="here", params={})
        inside.set()
        assert outside.wait(10)
    other.join(10)
    (queued,) = started_elsewhere
    assert celery_sends == [queued.pk]
    assert Job.objects.get(pk=queued.pk).status == JobStatus.QUEUED
    assert Job.objects.get(pk=here.pk).status == JobStatus.SUCCEEDED
