"""Jobs are leased rows: a job whose worker dies is taken over by the next worker and resumed from its last
saved point, never run twice at once. The last test kills a real Celery worker (SIGKILL) mid-job."""

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.utils import timezone

from apps.jobs import services
from apps.jobs.models import Job, JobStatus
from tests.fakes import counted_job
from tests.race import run_threads


@pytest.fixture
def item_rows(db):
    counted_job.create_table()
    yield counted_job.rows
    counted_job.drop_table()


def lose_the_worker(job: Job) -> None:
    """What a dead worker leaves: the row says running, its lease ran out a moment ago."""
    Job.objects.filter(pk=job.pk).update(
        status=JobStatus.RUNNING, attempts=1, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_running_job_renews_its_lease_with_each_progress_report(item_rows, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 3})
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.attempts == 1 and job.lease_expires_at is None
    assert job.heartbeat_at >= job.started_at and job.worker.endswith(f":{os.getpid()}")


def test_a_job_whose_worker_died_is_reclaimed_and_resumes_from_its_last_saved_point(
    item_rows, django_capture_on_commit_callbacks
):
    job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 5})  # not dispatched yet
    with connection.cursor() as cursor:  # the dead worker had done items 0 and 1
        cursor.executemany(f"INSERT INTO {counted_job.TABLE} VALUES (%s, %s, 1)", [(job.pk, 0), (job.pk, 1)])
    lose_the_worker(job)
    assert Job.objects.get(pk=job.pk).can_resume
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reclaim_lost_jobs() == [job.pk]
    job.refresh_from_db()
    assert (job.status, job.done, job.attempts) == (JobStatus.SUCCEEDED, 5, 2)
    assert [item for item, _ in item_rows(job.pk)] == [0, 1, 2, 3, 4]
    assert services.reclaim_lost_jobs() == []


def test_a_job_still_leased_is_not_claimed_again(item_rows):
    job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 2})
    Job.objects.filter(pk=job.pk).update(
        status=JobStatus.RUNNING, attempts=1, lease_expires_at=timezone.now() + timedelta(seconds=60)
    )
    services.run_job(job.pk)  # a duplicate delivery while the first worker is alive
    assert services.reclaim_lost_jobs() == [] and not services.resume_job(job=job)
    job.refresh_from_db()
    assert (job.status, job.attempts, item_rows(job.pk)) == (JobStatus.RUNNING, 1, [])


def test_a_run_that_lost_its_lease_can_no_longer_write_to_the_job(item_rows):
    job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 2})
    lose_the_worker(job)
    stale = services.Progress(Job.objects.get(pk=job.pk))  # the first run, not dead after all, only slow
    services.reclaim_lost_jobs()
    with pytest.raises(services.LeaseLost):
        stale.advance(message="late")
    assert Job.objects.get(pk=job.pk).message == "Worker lost; resuming"


def test_the_progress_partial_offers_to_resume_a_job_whose_worker_was_lost(item_rows, client_for, admin,
                                                                          django_capture_on_commit_callbacks):
    job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 2}, acting_user=admin)
    lose_the_worker(job)
    client = client_for(admin)
    html = client.get(f"/jobs/{job.pk}/progress/").content.decode()
    assert "worker stopped answering" in html and f"/jobs/{job.pk}/resume/" in html
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/jobs/{job.pk}/resume/", HTTP_HX_REQUEST="true")
    assert Job.objects.get(pk=job.pk).status == JobStatus.SUCCEEDED


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_reclaiming_at_once_claim_a_lost_job_once(settings):
    counted_job.create_table()
    try:
        job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 4})
        lose_the_worker(job)
        settings.JOB_RUNNER = "sync"  # each reclaimer runs what it claimed, at once
        errors = run_threads([services.reclaim_lost_jobs] * 4 + [lambda: services.run_job(job.pk)] * 4)
        assert errors == []
        job.refresh_from_db()
        assert (job.status, job.attempts) == (JobStatus.SUCCEEDED, 2)
        assert [item for item, _ in counted_job.rows(job.pk)] == [0, 1, 2, 3]
    finally:
        counted_job.drop_table()


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_keeps_a_long_step_leased_so_nobody_reclaims_it(settings):
    settings.JOB_LEASE_SECONDS, settings.JOB_HEARTBEAT_SECONDS = 1, 0.2
    counted_job.create_table()
    try:
        job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 2, "pause": 1.5})

        def run():
            try:
                services.run_job(job.pk)
            finally:
                connection.close()

        runner = threading.Thread(target=run)
        runner.start()  # each item sleeps longer than the lease, with no progress report meanwhile
        reclaimed = []
        while runner.is_alive():
            reclaimed += services.reclaim_lost_jobs()
            time.sleep(0.1)
        runner.join()
        job.refresh_from_db()
        assert reclaimed == [] and (job.status, job.attempts) == (JobStatus.SUCCEEDED, 1)
    finally:
        counted_job.drop_table()


# --- a real worker, killed ------------------------------------------------------------------------------

LEASE_SECONDS = 2


def _worker(name: str, log_path) -> subprocess.Popen:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL, "SORI_JOB_RUNNER": "celery", "SORI_JOB_LEASE_SECONDS": str(LEASE_SECONDS),
    }
    env.pop("CELERY_BROKER_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tests.fakes.job_worker", "worker", "--pool=prefork", "--concurrency=1",
         "--loglevel=INFO", "-n", f"{name}@%h", "--without-mingle", "--without-gossip", "--without-heartbeat"],
        cwd=settings.BASE_DIR, env=env, stdout=log_path.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the kill takes the pool's child too
    )


def _wait_for(condition, *, seconds: float, what: str, logs=()):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}\n" + "\n".join(p.read_text(errors="replace") for p in logs))


def _forget_broker_messages() -> None:
    """Messages of this test's jobs (a killed worker's unacknowledged one too) must not outlive it."""
    redis.Redis.from_url(settings.REDIS_URL).delete("celery", "unacked", "unacked_index", "unacked_mutex")


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_job_on_a_killed_celery_worker_is_finished_by_the_next_worker_with_no_item_twice_or_lost(settings, tmp_path):
    settings.JOB_RUNNER = "celery"
    settings.JOB_LEASE_SECONDS = LEASE_SECONDS
    counted_job.create_table()
    _forget_broker_messages()
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    first = second = None
    try:
        first = _worker("first", logs[0])
        job = services.start_job(kind=counted_job.KIND, title="Count", params={"items": 12, "pause": 0.3})
        _wait_for(lambda: len(counted_job.rows(job.pk)) >= 3, seconds=60, what="the first worker to do 3 items", logs=logs)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
        before = counted_job.rows(job.pk)
        assert 3 <= len(before) < 12 and Job.objects.get(pk=job.pk).status == JobStatus.RUNNING

        _wait_for(lambda: Job.objects.lease_lost().filter(pk=job.pk).exists(), seconds=LEASE_SECONDS + 5,
                  what="the dead worker's lease to run out")
        second = _worker("second", logs[1])  # it reclaims lost jobs as it starts
        _wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, seconds=60, what="the second worker to finish", logs=logs)

        job.refresh_from_db()
        after = counted_job.rows(job.pk)
        assert job.status == JobStatus.SUCCEEDED, job.error
        assert [item for item, _ in after] == list(range(12))  # every item once: none twice, none lost
        assert after[: len(before)] == before  # what the first worker saved stands; the second resumed after it
        first_pids, second_pids = {pid for _, pid in before}, {pid for _, pid in after[len(before):]}
        assert len(first_pids) == len(second_pids) == 1 and first_pids != second_pids
        assert (job.done, job.total, job.attempts) == (12, 12, 2)
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait(10)
        _forget_broker_messages()
        counted_job.drop_table()
