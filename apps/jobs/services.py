"""Starting, running, cancelling and resuming long jobs.

An app registers a handler per job kind in its `jobs.py`:

    @job_handler("listening.import")
    def import_manifest(job: Job, progress: Progress) -> dict: ...

and starts it with `start_job(kind="listening.import", title=..., params={...})`. The handler runs on a
Celery worker (broker configured), in a thread of this process (embedded default) or inline (tests), as
settings.JOB_RUNNER says. It reports progress, checks for cancellation through `progress`, and returns a
JSON-able result. A handler must be safe to run again on a job that stopped: resume skips what is done.
"""

import logging
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from itertools import islice

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import F
from django.utils import timezone

from apps.jobs.models import Job, JobStatus

log = logging.getLogger(__name__)

Handler = Callable[[Job, "Progress"], dict | None]
_handlers: dict[str, Handler] = {}


class JobCancelled(Exception):
    """Raised inside a handler (by Progress) when an admin asked the job to stop."""


def job_handler(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _handlers[kind] = fn
        return fn

    return register


class Progress:
    """What a handler sees of its job row: counts, a message, and the cancel flag."""

    def __init__(self, job: Job):
        self.job = job

    def set_total(self, total: int, message: str | None = None) -> None:
        self.job.total = total
        fields = {"total": total}
        if message is not None:
            fields["message"] = self.job.message = message[:500]
        Job.objects.filter(pk=self.job.pk).update(**fields)

    def advance(self, step: int = 1, message: str | None = None) -> None:
        self.set_done(self.job.done + step, message)

    def set_done(self, done: int, message: str | None = None) -> None:
        self.job.done = min(done, self.job.total) if self.job.total else done
        fields = {"done": self.job.done}
        if message is not None:
            fields["message"] = self.job.message = message[:500]
        Job.objects.filter(pk=self.job.pk).update(**fields)
        self.check_cancelled()

    def check_cancelled(self) -> None:
        if Job.objects.filter(pk=self.job.pk, cancel_requested=True).exists():
            raise JobCancelled()


def start_job(*, kind: str, title: str, params: dict | None = None, user=None, total: int = 0) -> Job:
    if kind not in _handlers:
        raise ValueError(f"no job handler is registered for {kind!r}")
    job = Job.objects.create(
        kind=kind, title=title[:200], params=params or {}, created_by=user if user and user.pk else None, total=total
    )
    _dispatch(job.pk)
    return job


def request_cancel(job: Job) -> None:
    """Ask a job to stop. A queued job stops at once; a running one at its next progress report."""
    Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, cancel_requested=True, finished_at=timezone.now(), message="Cancelled"
    )
    Job.objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()


def resume_job(job: Job) -> bool:
    """Queue a failed or cancelled job again; its handler skips the work already done."""
    resumed = Job.objects.filter(pk=job.pk, status__in=[JobStatus.FAILED, JobStatus.CANCELLED]).update(
        status=JobStatus.QUEUED, cancel_requested=False, error="", finished_at=None, message="Resuming"
    )
    if resumed:
        _dispatch(job.pk)
    job.refresh_from_db()
    return bool(resumed)


def _dispatch(job_id: int) -> None:
    runner = settings.JOB_RUNNER
    if runner == "sync":
        transaction.on_commit(lambda: run_job(job_id))
    elif runner == "thread":
        transaction.on_commit(lambda: threading.Thread(target=_run_in_thread, args=(job_id,), daemon=True).start())
    else:
        from workers.celery import app

        # After commit, so the worker never looks for a row that is not there yet.
        transaction.on_commit(lambda: app.send_task("sori.run_job", args=[job_id]))


def _run_in_thread(job_id: int) -> None:
    try:
        run_job(job_id)
    finally:
        connections.close_all()


def run_job(job_id: int) -> None:
    """Run one job to its end. Only a queued job starts, so a duplicate delivery does nothing."""
    claimed = Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=timezone.now(), attempts=F("attempts") + 1
    )
    if not claimed:
        log.info("job %s is not queued; nothing to do", job_id)
        return
    job = Job.objects.get(pk=job_id)
    handler = _handlers.get(job.kind)
    try:
        if handler is None:
            raise LookupError(f"no job handler is registered for {job.kind!r}")
        result = handler(job, Progress(job)) or {}
    except JobCancelled:
        _finish(job_id, JobStatus.CANCELLED, message="Cancelled")
    except Exception as exc:  # the row must show every failure, whatever raised it
        log.exception("job %s (%s) failed", job_id, job.kind)
        _finish(job_id, JobStatus.FAILED, message=f"Failed: {exc}"[:500], error=traceback.format_exc())
    else:
        _finish(job_id, JobStatus.SUCCEEDED, result=result)


def _finish(job_id: int, status: str, **fields) -> None:
    Job.objects.filter(pk=job_id).update(status=status, finished_at=timezone.now(), **fields)


def results_in_parallel(items: Iterable, work: Callable, *, workers: int, name: str = "job") -> Iterator[tuple]:
    """Yield (item, work(item)) as each finishes, with at most `workers` calls in flight. The caller's loop
    (progress, cancel checks, errors) stays on the job's thread; when it stops, the calls in flight finish
    and nothing more is submitted. Each worker thread closes its own database connection."""
    if workers <= 1:
        for item in items:
            yield item, work(item)
        return

    def run(item):
        try:
            return item, work(item)
        finally:
            connection.close()

    queue = iter(items)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        in_flight = {pool.submit(run, item) for item in islice(queue, workers)}
        try:
            while in_flight:
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    following = next(queue, None)
                    if following is not None:
                        in_flight.add(pool.submit(run, following))
        except BaseException:
            for future in in_flight:
                future.cancel()
            raise
