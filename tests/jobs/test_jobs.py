import threading
import time

import pytest
from django.db import connection

from apps.jobs import services
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import job_handler

ITEMS = ["a", "b", "c", "d"]


@job_handler("tests.count_items")
def count_items(job, progress):
    """Records each item once in job.result-like params so a resumed run can skip what is done."""
    done = list(Job.objects.get(pk=job.pk).result.get("done", []))
    progress.set_total(len(ITEMS))
    progress.set_done(len(done))
    for item in ITEMS:
        if item in done:
            continue
        if item == job.params.get("fail_at") and not job.params.get("fixed"):
            raise ValueError(f"item {item} is broken")
        done.append(item)
        Job.objects.filter(pk=job.pk).update(result={"done": done})
        progress.advance(message=f"counted {item}")
        if item == job.params.get("cancel_after"):
            services.request_cancel(job=job)
            progress.check_cancelled()
    return {"done": done}


def start(**params):
    return services.start_job(kind="tests.count_items", title="Count", params=params)


def test_a_job_runs_to_its_end_and_reports_progress(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start()
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.percent) == (JobStatus.SUCCEEDED, 4, 4, 100)
    assert job.result == {"done": ITEMS} and job.started_at and job.finished_at


def test_a_failed_job_keeps_its_traceback_and_resumes_where_it_stopped(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start(fail_at="c")
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.done == 2
    assert "ValueError: item c is broken" in job.error
    Job.objects.filter(pk=job.pk).update(params={"fail_at": "c", "fixed": True})
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.result == {"done": ITEMS} and job.attempts == 2


def test_a_running_job_stops_at_its_next_report_when_cancelled_and_can_resume(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start(cancel_after="b")
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED and job.result == {"done": ["a", "b"]}
    Job.objects.filter(pk=job.pk).update(params={})
    with django_capture_on_commit_callbacks(execute=True):
        services.resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.result == {"done": ITEMS}


def test_a_queued_job_cancelled_before_it_starts_never_runs(db):
    job = start()  # on_commit never fires inside the test transaction: it stays queued
    services.request_cancel(job=job)
    services.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED and job.done == 0


def test_a_duplicate_delivery_does_not_run_a_job_twice(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start()
    services.run_job(job.pk)
    job.refresh_from_db()
    assert job.attempts == 1


def test_the_progress_partial_polls_until_the_job_ends(client_for, admin, db):
    job = Job.objects.create(kind="tests.count_items", title="Count", status=JobStatus.RUNNING, done=1, total=4, created_by=admin)
    client = client_for(admin)
    html = client.get(f"/jobs/{job.pk}/progress/").content.decode()
    assert 'hx-trigger="every 1s"' in html and 'value="25"' in html and "1 / 4" in html
    client.post(f"/jobs/{job.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert Job.objects.get(pk=job.pk).cancel_requested
    Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, done=4)
    assert "hx-trigger" not in client.get(f"/jobs/{job.pk}/progress/").content.decode()


def test_a_person_sees_only_their_own_jobs(client_for, listeners, db):
    job = Job.objects.create(kind="tests.count_items", title="Count", created_by=listeners[0])
    assert client_for(listeners[0]).get(f"/jobs/{job.pk}/").status_code == 200
    assert client_for(listeners[1]).get(f"/jobs/{job.pk}/").status_code == 403


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_job_runs_on_a_real_celery_worker_over_redis(settings, make_wav, tmp_path):
    """The audio folder import runs as a job through Redis and a real worker, updating its progress."""
    from celery.contrib.testing.worker import start_worker

    from workers.celery import app

    for i, freq in enumerate((300, 500, 700)):
        make_wav(f"folder/clip{i}.wav", freq=freq)
    settings.JOB_RUNNER = "celery"
    seen_progress = []
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        job = services.start_job(kind="audio.import_folder", title="Import", params={"folder": str(tmp_path / "folder")})
        done = threading.Event()

        def watch():
            for _ in range(600):
                row = Job.objects.get(pk=job.pk)
                seen_progress.append(row.done)
                if row.is_finished:
                    break
                done.wait(0.05)
            connection.close()

        watcher = threading.Thread(target=watch)
        watcher.start()
        watcher.join(60)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert (job.done, job.total, job.result) == (3, 3, {"assets": 3})
    assert seen_progress[-1] == 3


def test_results_in_parallel_keeps_at_most_n_calls_in_flight_and_stops_with_the_caller():
    lock, running, peak, started = threading.Lock(), [0], [0], []

    def work(item):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            started.append(item)
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return item * item

    assert sorted(services.results_in_parallel(range(12), work, workers=3)) == [(i, i * i) for i in range(12)]
    assert peak[0] == 3
    started.clear()
    with pytest.raises(services.JobCancelled):
        for _ in services.results_in_parallel(range(100), work, workers=3):
            raise services.JobCancelled()  # e.g. progress.advance() saw a cancel
    assert len(started) <= 4  # the calls in flight finish; nothing more is submitted


@pytest.mark.django_db(transaction=True)
def test_results_in_parallel_gives_each_worker_thread_one_connection_and_closes_them_at_the_end():
    def backend(_item):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    def alive(pids):
        # A backend leaves pg_stat_activity a moment after its client hangs up: look for up to 5 s.
        for _ in range(50):
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [list(pids)])
                count = cursor.fetchone()[0]
            if count == 0:
                break
            time.sleep(0.1)
        return count

    pids = {pid for _item, pid in services.results_in_parallel(range(40), backend, workers=3)}
    assert 1 <= len(pids) <= 3  # not one connection per item
    assert alive(pids) == 0  # closed when the pool is done

    seen = set()

    def fail_late(item):
        seen.add(backend(item))
        if item == 5:
            raise ValueError(item)
        return item

    with pytest.raises(ValueError):
        list(services.results_in_parallel(range(10), fail_late, workers=2))
    assert seen and alive(seen) == 0  # closed when the caller stops on an error, too
