"""A job's subject: at most one unfinished job per subject, held by the database; and a job whose message the
broker would not take is failed at once (Unavailable), never left queued for a worker that will not come."""

import pytest
from django.db import transaction

from apps.core.errors import Unavailable
from apps.jobs import dispatch, services
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import SubjectBusy, job_handler

pytestmark = pytest.mark.django_db


@job_handler("tests.nothing")
def nothing(job, progress):
    return {}


def start(subject="", **fields):
    return services.start_job(kind="tests.nothing", title="Nothing", subject=subject, **fields)


@pytest.fixture
def queue(settings):
    """A broker stand-in: `queue.sent` holds what reached it; `queue.down = True` makes it refuse."""

    class Queue:
        sent: list[int] = []
        down = False

        def send(self, job_id):
            if self.down:
                raise ConnectionRefusedError(111, "Connection refused")
            self.sent.append(job_id)

    broker, before = Queue(), dispatch.celery_sender()
    broker.sent = []
    settings.JOB_RUNNER = "celery"
    dispatch.register_celery_sender(broker.send)
    yield broker
    dispatch.register_celery_sender(before)


def test_a_second_unfinished_job_on_a_subject_is_refused_naming_the_first(queue):
    first = start("box:1")

    with pytest.raises(SubjectBusy, match=f"job #{first.pk} ") as refused:
        start("box:1")

    assert refused.value.job == first and refused.value.status == 409
    assert start("box:2").subject == "box:2"  # another subject is free
    assert start().subject == start().subject == ""  # jobs without a subject never block each other


def test_a_refusal_inside_a_callers_transaction_leaves_that_transaction_usable(queue):
    start("box:1")
    with transaction.atomic():
        with pytest.raises(SubjectBusy):
            start("box:1")
        assert Job.objects.filter(subject="box:1").count() == 1  # the transaction still answers


@pytest.mark.parametrize("ended", [JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED])
def test_a_finished_job_frees_its_subject(queue, ended):
    first = start("box:1")
    Job.objects.filter(pk=first.pk).update(status=ended)

    assert start("box:1").status == JobStatus.QUEUED


def test_resuming_a_stopped_job_is_refused_while_another_holds_its_subject(queue):
    stopped = start("box:1")
    Job.objects.filter(pk=stopped.pk).update(status=JobStatus.FAILED)
    holder = start("box:1")

    with pytest.raises(SubjectBusy, match=f"job #{holder.pk} "):
        services.resume_job(job=stopped)

    assert Job.objects.get(pk=stopped.pk).status == JobStatus.FAILED
    Job.objects.filter(pk=holder.pk).update(status=JobStatus.SUCCEEDED)
    assert services.resume_job(job=stopped)


def test_a_running_job_that_lost_its_worker_is_queued_again_on_its_own_subject(queue):
    from datetime import timedelta

    from django.utils import timezone

    job = start("box:1")
    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING, lease_expires_at=timezone.now() - timedelta(seconds=1))

    assert services.reclaim_lost_jobs() == [job.pk]
    assert Job.objects.get(pk=job.pk).status == JobStatus.QUEUED


def test_a_job_the_broker_will_not_take_is_failed_at_once_and_frees_its_subject(queue, django_capture_on_commit_callbacks):
    queue.down = True
    with pytest.raises(Unavailable, match="job queue") as refused, django_capture_on_commit_callbacks(execute=True):
        job = start("box:1")

    assert refused.value.status == 503 and refused.value.code == "queue_unavailable"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.finished_at and "could not be reached" in job.message
    assert "ConnectionRefusedError" in job.error

    queue.down = False
    with django_capture_on_commit_callbacks(execute=True):
        again = start("box:1")
    assert queue.sent == [again.pk]
    Job.objects.filter(pk=again.pk).update(status=JobStatus.SUCCEEDED)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resume_job(job=job)  # the failed start can be resumed once the queue is back
    assert queue.sent == [again.pk, job.pk]
