"""Starting, running, cancelling, resuming and reclaiming long jobs.

An app registers a handler per job kind in its `jobs.py`:

    @job_handler("listening.import")
    def import_manifest(job: Job, progress: Progress) -> dict: ...

and starts it with `start_job(kind="listening.import", title=..., params={...})`. The handler runs on a
Celery worker (broker configured), in a thread of this process (embedded default) or inline (tests), as
settings.JOB_RUNNER says; a command or the demo seeding that waits for its job starts it inside `run_here()`
instead, which runs it in this process whatever the setting. It reports progress, checks for cancellation through `progress`, and returns a
JSON-able result. A handler must be safe to run again on a job that stopped: resume skips what is done.

A running job is leased (see Job): every progress report and a heartbeat thread renew the lease. When a
worker dies the lease runs out and `reclaim_lost_jobs` (beat, and every worker as it starts) queues the job
again; the next claim resumes it from its last saved point. Claims are conditional UPDATEs and every write
of a run is fenced by its claim number, so a job never runs twice at once.
"""

import logging
import os
import socket
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta
from itertools import islice
from typing import TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, models, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext

from apps.core.actors import actor
from apps.core.errors import ApplicationError, Conflict, Unavailable
from apps.jobs.dispatch import celery_sender
from apps.jobs.models import Job, JobStatus

log = logging.getLogger(__name__)

Handler = Callable[[Job, "Progress"], dict | None]
R = TypeVar("R", bound=models.Model)
_handlers: dict[str, Handler] = {}
# The ids of the jobs started inside run_here(), in this thread (or task), to run when its block ends.
_started_here: ContextVar[list[int] | None] = ContextVar("jobs_started_here", default=None)


class JobCancelled(Exception):
    """Raised inside a handler (by Progress) when an admin asked the job to stop."""


class LeaseLost(Exception):
    """Raised inside a handler (by Progress) when its lease ran out and the job was claimed again: this run
    must stop writing, another one carries on."""


def job_handler(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _handlers[kind] = fn
        return fn

    return register


def _lease_fields(now=None) -> dict:
    now = now or timezone.now()
    return {"heartbeat_at": now, "lease_expires_at": now + timedelta(seconds=settings.JOB_LEASE_SECONDS)}


class Progress:
    """What a handler sees of its job row: counts, a message, and the cancel flag. Every write renews the
    lease and is fenced by the claim (`attempts`) this run holds."""

    def __init__(self, job: Job):
        self.job = job
        self.attempt = job.attempts
        self.lease_lost = threading.Event()  # set by the heartbeat thread

    def _write(self, **fields) -> None:
        if self.lease_lost.is_set() or not self._claimed().update(**fields, **_lease_fields()):
            raise LeaseLost(f"job {self.job.pk} was claimed by another run")

    def _claimed(self):
        return Job.objects.filter(pk=self.job.pk, attempts=self.attempt, status=JobStatus.RUNNING)

    def set_total(self, total: int, message: str | None = None) -> None:
        self.job.total = total
        fields = {"total": total}
        if message is not None:
            fields["message"] = self.job.message = message[:500]
        self._write(**fields)

    def advance(self, step: int = 1, message: str | None = None) -> None:
        self.set_done(self.job.done + step, message)

    def set_done(self, done: int, message: str | None = None) -> None:
        self.save_done(done, message)
        self.check_cancelled()

    def save_done(self, done: int, message: str | None = None) -> None:
        """Write the count without looking for a cancel. Called first inside the transaction that stores a
        batch, the count commits with the work it counts, a run that lost its claim (LeaseLost) stores
        nothing of that batch, and the job row stays locked until the commit: no other run claims the job
        halfway through a batch (so keep batches short: a cancel request waits for the commit too)."""
        self.job.done = min(done, self.job.total) if self.job.total else done
        fields = {"done": self.job.done}
        if message is not None:
            fields["message"] = self.job.message = message[:500]
        self._write(**fields)

    def check_cancelled(self) -> None:
        if Job.objects.filter(pk=self.job.pk, cancel_requested=True).exists():
            raise JobCancelled()


def needing_attention(count: int, url: str) -> dict:
    """What a handler puts in its result, under apps.jobs.models.ATTENTION_KEY, when some items need
    attention: the job's status then says how many ("Succeeded, 16 need attention") and its progress links
    to `url`, the page listing those items with a retry."""
    return {"count": int(count), "url": url}


class SubjectBusy(Conflict):
    """A job could not be queued because another unfinished job works on the same subject (`job`)."""

    code = "busy"

    def __init__(self, message: str, *, job: Job | None = None):
        super().__init__(message)
        self.job = job

    @classmethod
    def holding(cls, subject: str) -> "SubjectBusy":
        job = Job.objects.active().filter(subject=subject).first()
        if job is None:  # it finished in between; the start may simply be tried again
            return cls(f"another job on {subject} was just starting; try again")
        return cls(f"job #{job.pk} ({job.title}) is {job.status} on this; wait for it or cancel it first", job=job)


def start_job(*, kind: str, title: str, params: dict | None = None, acting_user=None, total: int = 0,
              subject: str = "") -> Job:
    """Make a job and send it to the runner once the transaction commits. With a `subject` (e.g.
    `evaluation.run:42`) the database refuses a second unfinished job on it: that is a SubjectBusy naming the
    job that holds it. A starter still locks the subject's row and reads its unfinished jobs first, for a
    refusal in its own words; the constraint is what holds when a path forgets to."""
    if kind not in _handlers:
        raise ValueError(f"no job handler is registered for {kind!r}")
    try:
        with transaction.atomic():  # a savepoint, so the caller's transaction survives the refusal
            job = Job.objects.create(
                kind=kind, title=title[:200], params=params or {}, total=total, subject=subject,
                created_by=actor(acting_user),
            )
    except IntegrityError:
        if not subject:
            raise
        raise SubjectBusy.holding(subject) from None
    _dispatch(job.pk)
    return job


def start_stage_run(
    *, lock: models.Model, runs: models.QuerySet, stage: str, create: Callable[[], R], kind: str,
    title: str | None = None, params: dict | None = None, acting_user=None, total: int = 0,
) -> R:
    """Start one run of a stage over `lock` (the benchmark) unless one is running: the stages of the pipeline
    (ground truth, translation, normalization, speech) all start here. `lock`'s row is locked for the check
    and the insert, so of two starts at once the second waits, then sees the first run's job and is refused
    with a Conflict naming it; a check without the lock lets both through. `runs` are the stage's runs of
    `lock` (each with a `job`); `create()` saves the new run (and its rows) and returns it; the job gets
    `params` plus the run's id as `run_id`, and starts once the transaction commits.

    Durable: a start is a transaction of its own, so nesting it in a caller's cannot hold the lock (and
    the job) back until that caller commits."""
    with transaction.atomic(durable=True):
        type(lock)._default_manager.select_for_update().get(pk=lock.pk)
        running = runs.filter(job__in=Job.objects.active()).first()
        if running is not None:
            raise Conflict(gettext(
                "a %(stage)s of %(lock)s is already running (job #%(job_id)s)"
            ) % {"stage": stage, "lock": lock, "job_id": running.job_id}, code="stage_running")
        run = create()
        run.job = start_job(kind=kind, title=title or str(run), params={**(params or {}), "run_id": run.pk},
                            acting_user=acting_user, total=total)
        run.save(update_fields=["job"])
    return run


def request_cancel(*, job: Job) -> None:
    """Ask a job to stop. A queued job stops at once; a running one at its next progress report."""
    Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, cancel_requested=True, finished_at=timezone.now(), message="Cancelled"
    )
    Job.objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()


def abandon_job(*, job: Job, message: str, result: dict | None = None) -> bool:
    """End a job that no run holds (stopped, queued, or whose worker was lost) for good: it is marked
    cancelled with `result`, and a queued delivery finds nothing to claim. False while a run holds it (its
    lease is live): cancel it first. Call it in the transaction that drops what the job had made."""
    now = timezone.now()
    ended = Job.objects.filter(pk=job.pk).exclude(status=JobStatus.RUNNING, lease_expires_at__gte=now).update(
        status=JobStatus.CANCELLED, cancel_requested=False, finished_at=now, lease_expires_at=None,
        message=message[:500], result=result or {},
    )
    job.refresh_from_db()
    return bool(ended)


def _resumable(now=None) -> Q:
    return Q(status__in=[JobStatus.FAILED, JobStatus.CANCELLED]) | Q(
        status=JobStatus.RUNNING, lease_expires_at__lt=now or timezone.now()
    )


def resume_job(*, job: Job) -> bool:
    """Queue a failed or cancelled job, or one whose worker was lost, again; its handler skips the work
    already done."""
    try:
        with transaction.atomic():
            resumed = Job.objects.filter(_resumable(), pk=job.pk).update(
                status=JobStatus.QUEUED, cancel_requested=False, error="", finished_at=None, message="Resuming"
            )
    except IntegrityError:
        if not job.subject:
            raise
        raise SubjectBusy.holding(job.subject) from None  # another job on its subject started since it stopped
    if resumed:
        _dispatch(job.pk)
    job.refresh_from_db()
    return bool(resumed)


def reclaim_lost_jobs() -> list[int]:
    """Queue again every running job whose lease ran out (its worker died), freeing the concurrency slots it
    held (apps.agents.slots, taken with owner "job:<id>"). Each is taken by one conditional UPDATE, so
    concurrent reclaimers queue a job once. Returns the ids queued."""
    from apps.agents.slots import release_owner  # here: apps.agents imports apps.jobs at its top

    reclaimed = []
    for pk in Job.objects.lease_lost().values_list("pk", flat=True):
        if Job.objects.lease_lost().filter(pk=pk).update(status=JobStatus.QUEUED, message="Worker lost; resuming"):
            log.warning("job %s lost its worker; queued again", pk)
            release_owner(f"job:{pk}")  # the concurrency slots its dead worker held, free now, not after their lease
            reclaimed.append(pk)
            _dispatch(pk)
    return reclaimed


@contextmanager
def run_here() -> Iterator[None]:
    """Every job started (or resumed) inside the block, and any job those jobs start, runs in this thread,
    one after another, when the block ends, whatever settings.JOB_RUNNER says; other threads and requests
    keep the configured runner. For a management command or the demo seeding, which waits for its job.

    The jobs run at the end of the block rather than on commit, so a block inside an outer transaction (the
    demo seeds in one; so do tests) runs them too, in that transaction, which sees the rows it wrote. A block
    that raises runs nothing (what it started normally rolled back with it). run_job claims only a queued
    job, so a job is never run twice."""
    started: list[int] = []
    token = _started_here.set(started)
    try:
        yield
        while started:
            run_job(started.pop(0))
    finally:
        _started_here.reset(token)


def _dispatch(job_id: int) -> None:
    started_here = _started_here.get()
    if started_here is not None:
        started_here.append(job_id)
        return
    runner = settings.JOB_RUNNER
    if runner == "sync":
        transaction.on_commit(lambda: run_job(job_id))
    elif runner == "thread":
        transaction.on_commit(lambda: threading.Thread(target=_run_in_thread, args=(job_id,), daemon=True).start())
    else:
        send = celery_sender()
        if send is None:
            raise ImproperlyConfigured("SORI_JOB_RUNNER=celery, but the Celery app (workers.celery) is not loaded")
        # After commit, so the worker never looks for a row that is not there yet.
        transaction.on_commit(lambda: _send_or_fail(send, job_id))


def _send_or_fail(send: Callable[[int], None], job_id: int) -> None:
    """Queue the job's message. When the broker cannot take it, no worker will ever take the job: it is
    marked failed (it holds no subject then, and can be resumed later) and the start answers Unavailable (a
    503 naming the job queue) instead of leaving a queued job that blocks what it works on."""
    try:
        send(job_id)
    except Exception as exc:  # whatever the transport raised, the message was not queued
        log.exception("job %s could not be queued", job_id)
        Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
            status=JobStatus.FAILED, finished_at=timezone.now(), message="Not started: the job queue could not be reached",
            error=f"{type(exc).__name__}: {exc}"[:2000],
        )
        raise Unavailable(gettext("The job queue (the Celery broker) cannot be reached, so nothing was started; try again "
                          "once it is back."), code="queue_unavailable") from exc


def _run_in_thread(job_id: int) -> None:
    try:
        run_job(job_id)
    finally:
        connections.close_all()


def _claim(job_id: int) -> bool:
    """Queued -> running, or a running job whose lease ran out -> running again under a new claim."""
    now = timezone.now()
    return bool(Job.objects.filter(Q(status=JobStatus.QUEUED) | Q(status=JobStatus.RUNNING, lease_expires_at__lt=now), pk=job_id).update(
        status=JobStatus.RUNNING, started_at=now, attempts=F("attempts") + 1, worker=f"{socket.gethostname()}:{os.getpid()}"[:200],
        **_lease_fields(now),
    ))


def run_job(job_id: int) -> None:
    """Run one job to its end. Only a queued job, or one that lost its worker, is claimed, so a duplicate
    delivery does nothing."""
    if not _claim(job_id):
        log.info("job %s is neither queued nor lost; nothing to do", job_id)
        return
    job = Job.objects.get(pk=job_id)
    handler = _handlers.get(job.kind)
    progress = Progress(job)
    # The heartbeat writes on a connection of its own, which sees the row only once it is committed: inside
    # an outer transaction (a test's, or a caller's atomic block) only the progress reports renew the lease.
    heartbeat = None if connection.in_atomic_block else _Heartbeat(progress)
    try:
        if handler is None:
            raise LookupError(f"no job handler is registered for {job.kind!r}")
        result = handler(job, progress) or {}
    except LeaseLost:
        log.warning("job %s: lease lost, leaving it to the run that claimed it", job_id)
    except JobCancelled:
        _finish(progress, JobStatus.CANCELLED, message="Cancelled")
    except Exception as exc:  # the row must show every failure, whatever raised it
        if isinstance(exc, ApplicationError) and exc.status < 500:
            # A refusal of what a person gave (a bad file, a taken name) is their mistake, not Sori's: one log
            # line with the reason, no traceback; the job's page names each problem.
            log.warning("job %s (%s) refused: %s", job_id, job.kind, exc.message)
        else:
            log.exception("job %s (%s) failed", job_id, job.kind)
        _finish(progress, JobStatus.FAILED, message=f"{FAILED_PREFIX}{failure_in_words(exc)}"[:500],
                error=traceback.format_exc())
    else:
        _finish(progress, JobStatus.SUCCEEDED, result=result)
    finally:
        if heartbeat is not None:
            heartbeat.stop()


FAILED_PREFIX = "Failed: "  # a failed job's message starts so; what follows is its reason (Job.failure_reason)


def failure_in_words(exc: BaseException) -> str:
    """Why a job failed, as its page says it. Sori's own refusals and the apps' errors (an agent's budget, a
    provider that answered nothing usable) carry a message written for people; Python's own exceptions
    (a KeyError, a TypeError) are a bug's symptom, so the reason says that, and the trace stays in `error`."""
    text = str(exc).strip()
    if isinstance(exc, ApplicationError) or (type(exc).__module__ != "builtins" and text):
        return text
    return f"an unexpected error in Sori ({type(exc).__name__}{': ' + text if text else ''}); the technical details have its trace"


def _finish(progress: Progress, status: str, **fields) -> None:
    progress._claimed().update(status=status, finished_at=timezone.now(), lease_expires_at=None, **fields)


class _Heartbeat(threading.Thread):
    """Renews the lease every JOB_HEARTBEAT_SECONDS while one step of the handler runs long (an agent call,
    a file decode). Dies with the process, which is the point: a dead worker stops renewing."""

    def __init__(self, progress: Progress):
        super().__init__(name=f"job-{progress.job.pk}-heartbeat", daemon=True)
        self.progress = progress
        self._stopped = threading.Event()
        self.start()

    def run(self) -> None:
        try:
            while not self._stopped.wait(settings.JOB_HEARTBEAT_SECONDS):
                if not self.progress._claimed().update(**_lease_fields()):
                    self.progress.lease_lost.set()
                    return
        except Exception:  # a failed beat only risks a reclaim, which the fencing makes safe
            log.exception("job %s: heartbeat failed", self.progress.job.pk)
        finally:
            connection.close()

    def stop(self) -> None:
        self._stopped.set()
        self.join()


def results_in_parallel(items: Iterable, work: Callable, *, workers: int, name: str = "job") -> Iterator[tuple]:
    """Yield (item, work(item)) as each finishes, with at most `workers` calls in flight. The caller's loop
    (progress, cancel checks, errors) stays on the job's thread; when it stops, the calls in flight finish
    and nothing more is submitted. Each worker thread keeps one database connection for all its items (a new
    connection per item cost more than the item's own queries) and it is closed when the pool is done."""
    if workers <= 1:
        for item in items:
            yield item, work(item)
        return

    opened = {}  # worker thread -> its connection, shared so the job's thread can close it at the end

    def run(item):
        if threading.get_ident() not in opened:
            connections[DEFAULT_DB_ALIAS].inc_thread_sharing()
            opened[threading.get_ident()] = connections[DEFAULT_DB_ALIAS]
        try:
            return item, work(item)
        except BaseException:
            connection.close()  # the next item starts on a fresh connection, whatever state this one was left in
            raise

    queue = iter(items)
    try:
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
    finally:
        for wrapper in opened.values():
            wrapper.close()
            wrapper.dec_thread_sharing()
