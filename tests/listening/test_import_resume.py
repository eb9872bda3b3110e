"""An upload import stores its clips in committed batches: a cancelled or killed import resumes from the
batches it stored, never duplicates a clip, and no listener is offered the test before it is complete."""

import io
import os
import threading
import time
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.audio.models import AudioAsset
from apps.audio.store import Staging
from apps.core.errors import Conflict, NotFound
from apps.jobs import services as jobs
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import Progress
from apps.listening import selectors, services
from apps.listening.manifest import read_manifest
from apps.listening.models import Clip, ListeningTest
from apps.listening.models import TestStatus as Status
from apps.queues.models import WorkItem
from tests.race import run_threads

from .conftest import clip_rows

pytestmark = pytest.mark.django_db(transaction=True)  # batches commit for real


class WorkerDied(BaseException):
    """Stands for the worker process dying: no handler or job runner catches it."""


@pytest.fixture
def batches_of(monkeypatch):
    def set_size(n):
        monkeypatch.setattr(services, "IMPORT_BATCH", n)

    return set_size


@pytest.fixture
def upload(write_manifest, bundle_dir, admin):
    """upload(rows) -> (job, manifest clip ids): the bundle stored as the import page stores it, its job
    started (the sync runner runs it at once)."""

    def start(rows, *, name="resumable"):
        write_manifest(rows)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            for path in bundle_dir.iterdir():
                zf.write(path, f"bundle/{path.name}")
        stored = default_storage.save("listening-imports/test.zip", ContentFile(buffer.getvalue()))
        job = jobs.start_job(kind="listening.import", title=f"Import {name}", acting_user=admin,
                             params={"bundle": stored, "name": name, "label": "test.zip", "counts_in_message": True})
        job.refresh_from_db()
        return job, sorted(r["clip_id"] for r in rows)

    return start


def _spy_batches(monkeypatch, after=None):
    """Count the batches stored; `after(n)` runs inside the n-th batch's transaction, once it is written."""
    real, sizes = services._store_batch, []

    def spy(test, rows, **kwargs):
        real(test, rows, **kwargs)
        sizes.append(len(rows))
        if after is not None:
            after(len(sizes))

    monkeypatch.setattr(services, "_store_batch", spy)
    return sizes


def test_a_cancelled_import_resumes_to_exactly_the_manifests_clips_and_no_listener_sees_it_before(
    upload, batches_of, monkeypatch, listener, admin, client_for
):
    batches_of(10)

    def cancel_in_batch(n):
        if n == 2:  # the admin presses Cancel while the second batch is being stored
            jobs.request_cancel(job=Job.objects.get(kind="listening.import"))

    sizes = _spy_batches(monkeypatch, after=cancel_in_batch)
    job, manifest_ids = upload(clip_rows(50, gold=3))
    assert job.status == JobStatus.CANCELLED and sizes == [10, 10]
    test = ListeningTest.objects.get(name="resumable")
    assert test.status == Status.IMPORTING and test.clips.count() == 20 and test.clips_expected == 53
    assert default_storage.exists(job.params["bundle"])  # kept for the resume

    # Listeners are never offered the unfinished test, and it cannot be published.
    assert not ListeningTest.objects.open_to(listener).exists() and selectors.tests_for_listener(listener) == []
    with pytest.raises(NotFound):
        services.next_assignment(test=test, acting_user=listener)
    with pytest.raises(Conflict, match="not imported completely"):
        services.publish_test(test=test, acting_user=admin)
    admin_client = client_for(admin)
    page = admin_client.get("/listening/manage/").content.decode()
    assert "Import incomplete: 20 of 53 clips stored" in page and "Discard" in page and "Resume" in page
    status = admin_client.get(f"/listening/manage/import/jobs/{job.pk}/").content.decode()
    assert "Import incomplete: 20 of 53 clips stored" in status
    assert client_for(listener).get(f"/listening/tests/{test.pk}/").status_code == 404

    response = admin_client.post(f"/listening/manage/tests/{test.pk}/import/resume/")
    assert response.status_code == 302 and response.url == f"/listening/manage/import/jobs/{job.pk}/"
    job.refresh_from_db()
    test.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.done == job.total
    assert sizes == [10, 10, 10, 10, 10, 3]  # the resume stored only the 33 clips left
    stored_ids = list(test.clips.values_list("clip_id", flat=True))
    assert sorted(stored_ids) == manifest_ids  # none missing, none twice
    assert WorkItem.objects.filter(pool=test.pool).count() == 53 and test.clips.gold().count() == 3
    assert test.status == Status.DRAFT and not default_storage.exists(job.params["bundle"])
    services.publish_test(test=test, acting_user=admin)
    assert [t for t, *_ in selectors.tests_for_listener(listener)] == [test]


def test_a_worker_killed_after_k_batches_resumes_from_those_batches(upload, batches_of, monkeypatch):
    batches_of(8)
    died = []

    def die(n):
        if n == 4 and not died:  # the worker dies while storing the fourth batch: three are committed
            died.append(n)
            raise WorkerDied()

    sizes = _spy_batches(monkeypatch, after=die)
    with pytest.raises(WorkerDied):
        upload(clip_rows(40, gold=2))
    job = Job.objects.get(kind="listening.import")
    test = ListeningTest.objects.get(name="resumable")
    assert job.status == JobStatus.RUNNING and test.status == Status.IMPORTING
    before = list(test.clips.order_by("pk").values_list("pk", "clip_id", "work_item_id", "asset_id", "text"))
    assert len(before) == 3 * 8  # the fourth batch rolled back whole...
    assert WorkItem.objects.filter(pool=test.pool).count() == 24  # ...its work items with it

    sizes.clear()
    Job.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    with CaptureQueriesContext(connection) as queries:
        assert jobs.reclaim_lost_jobs() == [job.pk]  # the next worker takes it over and runs it
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.attempts == 2 and job.done == job.total
    assert sizes == [8, 8, 2]  # 42 - 24: it went on from the three batches, not from zero
    # Its bar counted only what was left (issue 20: it dropped from 70 % to 40 % re-counting checks).
    assert job.total == 18 + 18 and job.message == "Step 2 of 2: stored 18 of 18 clips"
    after = list(test.clips.order_by("pk").values_list("pk", "clip_id", "work_item_id", "asset_id", "text"))
    assert after[:24] == before and len(after) == 42 == len({c for _, c, *_ in after})
    clip_writes = [q["sql"] for q in queries.captured_queries if '"listening_clip"' in q["sql"]]
    assert not [sql for sql in clip_writes if sql.startswith(("UPDATE", "DELETE"))]  # stored rows left alone
    assert sum(sql.startswith(("COPY", "INSERT")) for sql in clip_writes) == 3  # one insert per new batch
    test.refresh_from_db()
    assert test.status == Status.DRAFT


def test_progress_moves_with_each_batch_while_storing(upload, batches_of, monkeypatch):
    batches_of(10)

    real, written = Progress._write, []

    def recording(self, **fields):
        real(self, **fields)
        written.append((self.job.done, self.job.total, self.job.message))

    monkeypatch.setattr(Progress, "_write", recording)
    job, _ = upload(clip_rows(60))
    assert job.status == JobStatus.SUCCEEDED and job.total == 60 + 60  # 60 files checked, 60 clips stored
    storing = [done for done, _total, message in written if message.startswith("Step 2 of 2: stored")]
    assert storing == [70, 80, 90, 100, 110, 120]  # one write per batch of 10, each further on
    dones = [done for done, _total, _ in written if _total == 120]
    assert dones == sorted(dones)  # the bar never goes back, checks then storing
    assert "Step 1 of 2: checked 60 of 60 audio files" in [message for *_, message in written]


def test_two_resumes_at_once_run_the_import_once(upload, batches_of, monkeypatch):
    batches_of(5)
    cancelled = []

    def cancel_once(n):
        if n == 2 and not cancelled:
            cancelled.append(n)
            jobs.request_cancel(job=Job.objects.get(kind="listening.import"))

    _spy_batches(monkeypatch, after=cancel_once)
    job, manifest_ids = upload(clip_rows(30))
    assert job.status == JobStatus.CANCELLED
    resumed = []
    errors = run_threads([lambda: resumed.append(jobs.resume_job(job=Job.objects.get(pk=job.pk)))] * 2)
    assert not errors and sorted(resumed) == [False, True]
    job.refresh_from_db()
    test = ListeningTest.objects.get(name="resumable")
    assert job.status == JobStatus.SUCCEEDED and sorted(test.clips.values_list("clip_id", flat=True)) == manifest_ids


def test_a_run_that_lost_its_claim_stores_nothing_more_while_the_new_run_finishes(
    upload, batches_of, monkeypatch, settings, caplog
):
    """The old run stalls between two batches, its lease runs out and another worker takes the job over:
    the new run stores every clip left, and the old one, waking up, finds at its next batch's fenced write
    that the job is no longer its own and stores nothing."""
    settings.JOB_RUNNER = "thread"
    settings.JOB_LEASE_SECONDS = 600  # no heartbeat renews the old run's lease during the test
    batches_of(5)

    stalled, release = threading.Event(), threading.Event()
    real_check = Progress.check_cancelled

    def stall_old_run(self):
        if self.attempt == 1 and self.job.message == "Step 2 of 2: stored 10 of 30 clips":  # after its second batch
            stalled.set()
            release.wait(30)
        real_check(self)

    monkeypatch.setattr(Progress, "check_cancelled", stall_old_run)
    job, manifest_ids = upload(clip_rows(30))
    assert stalled.wait(30)
    Job.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert jobs.reclaim_lost_jobs() == [job.pk]  # the new run starts in a thread of its own
    deadline = time.monotonic() + 60
    while not Job.objects.get(pk=job.pk).is_finished and time.monotonic() < deadline:
        time.sleep(0.1)
    release.set()
    while "lease lost" not in caplog.text and time.monotonic() < deadline:
        time.sleep(0.1)
    job.refresh_from_db()
    test = ListeningTest.objects.get(name="resumable")
    assert job.status == JobStatus.SUCCEEDED and job.attempts == 2
    assert "lease lost" in caplog.text  # the old run stopped at its fenced write
    assert sorted(test.clips.values_list("clip_id", flat=True)) == manifest_ids
    assert Clip.objects.count() == 30 and WorkItem.objects.filter(pool=test.pool).count() == 30
    assert all(default_storage.exists(a.file.name) for a in AudioAsset.objects.all())


def test_two_runs_storing_one_import_at_once_store_each_clip_once(write_manifest, batches_of):
    """Should two runs ever store the same unfinished import at once, the unique (test, clip_id) key
    refuses the second copy of a clip; the run it refused keeps the other's clips and goes on."""
    batches_of(3)
    with Staging() as staging:  # one run takes each staged file, the other finds it stored or copies it
        rows = read_manifest(write_manifest(clip_rows(30)), stage=staging)
        test = services._begin_import(name="raced", rows=rows)
        errors = run_threads([lambda: services._store_clips(test, rows, staged=staging)] * 2)
    assert not errors
    ids = list(test.clips.values_list("clip_id", flat=True))
    assert len(ids) == 30 == len(set(ids))
    assert WorkItem.objects.filter(pool=test.pool).count() == 30  # a refused batch took its items back
    assert services._finish_import(test).status == Status.DRAFT


def _stored_audio_files(settings) -> list[str]:
    return sorted(p.name for p in (Path(settings.MEDIA_ROOT) / "audio").rglob("*") if p.is_file())


def test_a_job_stores_the_files_it_staged_batch_by_batch_and_a_cancel_leaves_none_staged(
    upload, batches_of, monkeypatch, settings
):
    """Each file is staged as the job checks it (audio.Staging) and stored by a rename with its batch; the
    files of the batches a cancel kept from storing are discarded, not left as `.part` files."""
    from apps.audio import store as audio

    def no_copy(*args, **kwargs):
        raise AssertionError("a staged file was copied again")

    monkeypatch.setattr(audio, "_copy_checked", no_copy)
    batches_of(4)
    _spy_batches(monkeypatch, after=lambda n: n == 1 and jobs.request_cancel(job=Job.objects.get(kind="listening.import")))
    job, _ = upload(clip_rows(12), name="cancel me")
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert _stored_audio_files(settings) == sorted(f"{a.sha256}.wav" for a in AudioAsset.objects.all())
    assert AudioAsset.objects.count() == 4  # the first batch's files; the other eight were discarded

    job, _ = upload(clip_rows(12), name="whole")  # the same twelve files: four of them are stored already
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert _stored_audio_files(settings) == sorted(f"{a.sha256}.wav" for a in AudioAsset.objects.all())
    assert AudioAsset.objects.count() == 12


def test_a_file_that_cannot_be_staged_is_copied_when_it_is_stored(write_manifest, monkeypatch, settings):
    """Staging is a shortcut: a file it cannot write (a full disk) is copied with its batch as before."""
    import errno

    def full_disk(fd, data):  # only staging writes with os.write; a copy writes through a file object
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    test = services.import_listening_test(name="copied", manifest=write_manifest(clip_rows(5)))
    monkeypatch.undo()
    assert test.clips.count() == 5
    assert _stored_audio_files(settings) == sorted(f"{a.sha256}.wav" for a in AudioAsset.objects.all())


def test_discarding_an_unfinished_import_drops_it_and_its_bundle(upload, batches_of, monkeypatch, admin, client_for):
    batches_of(5)
    _spy_batches(monkeypatch, after=lambda n: n == 2 and jobs.request_cancel(job=Job.objects.get(kind="listening.import")))
    job, _ = upload(clip_rows(20))
    test = ListeningTest.objects.get(name="resumable")
    pool_id = test.pool_id
    response = client_for(admin).post(f"/listening/manage/tests/{test.pk}/import/discard/")
    assert response.status_code == 302
    assert not ListeningTest.objects.exists() and not Clip.objects.exists()
    assert not WorkItem.objects.filter(pool_id=pool_id).exists()
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED and job.message.startswith("Discarded")
    assert job.result["errors"] and not default_storage.exists(job.params["bundle"])
    page = client_for(admin).get(f"/listening/manage/import/jobs/{job.pk}/").content.decode()
    assert "Fix and upload again" in page and "discarded" in page


def test_a_running_import_cannot_be_discarded(upload, batches_of, monkeypatch, admin):
    batches_of(5)
    seen = {}

    def try_discard(n):
        if n == 1:
            test = ListeningTest.objects.get(name="resumable")
            with pytest.raises(Conflict, match="still running"):
                services.discard_import(test=test, acting_user=admin)
            seen["refused"] = True

    _spy_batches(monkeypatch, after=try_discard)
    job, manifest_ids = upload(clip_rows(10))
    assert seen == {"refused": True} and job.status == JobStatus.SUCCEEDED


def test_the_import_bar_counts_its_two_steps_in_words_not_as_one_sum(client_for, admin, upload):
    # Issue 20: "2400 / 2400" for 1,200 clips (file checks and stored clips added up).
    job, _ = upload(clip_rows(12))
    job.refresh_from_db()
    bar = client_for(admin).get(f"/jobs/{job.pk}/progress/").content.decode()
    assert f"{job.total} / {job.total}" not in bar and "100%" in bar and "Step 2 of 2: stored 12 of 12 clips" in bar
