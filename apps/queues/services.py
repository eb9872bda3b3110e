"""The shared assignment engine: hand each item of a pool to K different workers, one item at a time.

How it works
------------
A worker asks for work with `claim_next(pool, worker)`. The engine picks the first item in that worker's own
shuffled order (apps/queues/ordering.py) that still has a free slot, and writes a *lease*: an Assignment row
(status leased, expires_at = now + pool.lease_seconds). A slot is free while

    submitted_count + live leases < capacity        (capacity = the pool's K unless the item says otherwise)

where a live lease is a leased row whose expires_at is still ahead. Every change to an item's leases or
submissions happens while holding that item's row lock (SELECT ... FOR UPDATE), so the sum above never
exceeds the capacity, whatever the number of concurrent workers.

Why SKIP LOCKED: the claim query locks the chosen item with FOR UPDATE SKIP LOCKED. A worker never queues
behind another worker's claim or submission on the same item; it takes the next item in its own order
instead. Different workers also walk the pool in different orders, so they rarely even meet. The query's
count of live leases comes from the statement's snapshot, which may be a few milliseconds old by the time
the row lock is granted, so the count is checked again under the lock before the lease is written (a
stale candidate is simply skipped). If every remaining candidate is momentarily locked by someone else,
the claim falls back to waiting for the lock on the first of them instead of wrongly answering "nothing
left". SQLite has no row locks: there the settings make every transaction BEGIN IMMEDIATE, which
serialises writers, so the same code is correct, just not concurrent.

Leases and late submissions: a lease that runs out frees its slot for someone else (nothing needs to run
for that: "live" is defined by expires_at; `expire_stale_leases` only relabels old rows for the admin). A
consumer saves a submission inside its own transaction.atomic(): `lease_for_submission(item, worker)` locks
the item and accepts if the worker still holds a live lease, or if the lease lapsed (or was released) but
the slot is still free, in which case the lease is renewed; otherwise it raises SlotTaken. Then the
consumer writes its record and calls `mark_submitted(assignment)`, which counts it. Both calls are
idempotent, so a repeated submission stores one record.

One Assignment row per (item, worker), ever (a unique constraint): nobody gets the same item twice.
"""

import random
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from apps.queues.models import Assignment, AssignmentStatus, PoolExclusion, WorkItem, WorkPool
from apps.queues.ordering import ORDER_PRIME, order_seed

__all__ = [
    "QueueError", "NoLease", "SlotTaken", "ItemClosed", "WorkerExcluded",
    "create_pool", "add_items", "claim_next", "lease_for_submission", "mark_submitted", "release",
    "close_item", "exclude_worker", "expire_stale_leases",
]


class QueueError(Exception):
    """Base of the engine's refusals; `code` is a short machine-readable reason for API responses."""

    code = "queue_error"


class NoLease(QueueError):
    code = "no_lease"


class SlotTaken(QueueError):
    code = "slot_taken"


class ItemClosed(QueueError):
    code = "item_closed"


class WorkerExcluded(QueueError):
    code = "worker_excluded"


# ---- pools and items -------------------------------------------------------------------------------------


def create_pool(*, name: str, kind: str, required_per_item: int, lease_seconds: int | None = None) -> WorkPool:
    if not isinstance(required_per_item, int) or required_per_item < 1:
        raise ValueError(f"required_per_item must be a whole number of at least 1, not {required_per_item!r}")
    if lease_seconds is not None and (not isinstance(lease_seconds, int) or lease_seconds < 1):
        raise ValueError(f"lease_seconds must be a whole number of seconds, at least 1, not {lease_seconds!r}")
    pool = WorkPool(name=name, kind=kind, required_per_item=required_per_item)
    if lease_seconds is not None:
        pool.lease_seconds = lease_seconds
    pool.full_clean(exclude=["excluded_workers"])
    pool.save()
    return pool


def add_items(pool: WorkPool, count: int, *, capacity: int | None = None) -> list[WorkItem]:
    """Create `count` items in one bulk insert, each with a random order key. capacity: None for the pool's
    K, WorkItem.UNLIMITED for gold items every worker should get once, or a number."""
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a whole number, not {count!r}")
    if capacity is not None and (not isinstance(capacity, int) or capacity < 0):
        raise ValueError(f"capacity must be None, WorkItem.UNLIMITED or a positive number, not {capacity!r}")
    rng = random.SystemRandom()
    items = [WorkItem(pool=pool, capacity=capacity, order_key=rng.randrange(ORDER_PRIME)) for _ in range(count)]
    return WorkItem.objects.bulk_create(items, batch_size=1000)


# ---- claiming ---------------------------------------------------------------------------------------------


def claim_next(pool: WorkPool, worker, *, now: datetime | None = None) -> Assignment | None:
    """The worker's current item in this pool, leasing the next one in their own order if they hold none.
    None when nothing is left for them (or they are excluded)."""
    now = now or timezone.now()
    with transaction.atomic():
        # Two tabs of the same worker must not both lease an item; other workers are not held up by this.
        _lock_worker(pool.pk, worker.pk)
        if PoolExclusion.objects.filter(pool=pool, worker=worker).exists():
            return None
        held = _own_live_lease(pool, worker, now)
        if held is not None:
            return held
        try:
            # Fast path: skip items other workers are locking right now.
            with transaction.atomic():
                assignment = _claim_candidate(pool, worker, now, skip_locked=True)
                if assignment is None and connection.features.has_select_for_update_skip_locked:
                    # Roll back this savepoint, which drops the row locks taken so far, before waiting below.
                    raise _NothingUnlocked
                return assignment
        except _NothingUnlocked:
            pass
        # Slow path (PostgreSQL only): candidates may remain that someone else held locked a moment ago.
        # Wait for them one at a time, holding no other item lock while waiting (so no deadlock).
        tried: list[int] = []
        while True:
            try:
                with transaction.atomic():
                    item_id = _candidate_id(pool, worker, now, exclude=tried, lock="wait")
                    if item_id is None:
                        return None
                    assignment = _lease_if_room(pool, worker, item_id, now)
                    if assignment is None:
                        raise _NoRoom(item_id)
                    return assignment
            except _NoRoom as no_room:
                tried.append(no_room.item_id)


class _NothingUnlocked(Exception):
    pass


class _NoRoom(Exception):
    def __init__(self, item_id: int):
        self.item_id = item_id


def _lock_worker(pool_id: int, worker_id: int) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # Transaction-scoped advisory lock on (pool, worker); released at commit or rollback.
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_int4(pool_id), _int4(worker_id)])


def _int4(value: int) -> int:
    """Fold an id into PostgreSQL's int4 range for advisory-lock keys (a collision only serialises more)."""
    return (value % 2**32) - 2**31


def _own_live_lease(pool: WorkPool, worker, now: datetime) -> Assignment | None:
    leased = list(
        Assignment.objects.filter(pool=pool, worker=worker, status=AssignmentStatus.LEASED).order_by("leased_at", "id")
    )
    stale = [a.pk for a in leased if not a.is_live(now)]
    if stale:
        # Relabel only; a leased row past its expiry already counts as free everywhere.
        Assignment.objects.filter(pk__in=stale, status=AssignmentStatus.LEASED, expires_at__lte=now).update(
            status=AssignmentStatus.EXPIRED
        )
    return next((a for a in leased if a.is_live(now)), None)


def _claim_candidate(pool: WorkPool, worker, now: datetime, *, skip_locked: bool) -> Assignment | None:
    tried: list[int] = []
    while True:
        item_id = _candidate_id(pool, worker, now, exclude=tried, lock="skip" if skip_locked else "none")
        if item_id is None:
            return None
        assignment = _lease_if_room(pool, worker, item_id, now)
        if assignment is not None:
            return assignment
        # The query's snapshot was stale: someone filled the slot just before we got the lock. Keep the lock
        # (it is released at commit) and move on to the next item in this worker's order.
        tried.append(item_id)


def _candidate_id(pool: WorkPool, worker, now: datetime, *, exclude: list[int], lock: str) -> int | None:
    """The first item in the worker's order that looks open, locked (lock="skip" skips rows others hold,
    lock="wait" waits for them). One query: a hash anti-join on the worker's own assignments, a hash join
    on the pool's live leases, and a scan of the open-items partial index sorted by the worker's key."""
    a, b = order_seed(pool.pk, worker.pk)
    item_table = WorkItem._meta.db_table
    asg_table = Assignment._meta.db_table
    now_db = connection.ops.adapt_datetimefield_value(now)
    excluded_sql = ""
    if exclude:
        excluded_sql = f"AND i.id NOT IN ({', '.join(['%s'] * len(exclude))})"
    lock_sql = ""
    if lock != "none" and connection.features.has_select_for_update:
        lock_sql = "FOR UPDATE OF i SKIP LOCKED" if lock == "skip" else "FOR UPDATE OF i"
    sql = f"""
        WITH live AS (
            SELECT item_id, COUNT(*) AS n FROM {asg_table}
            WHERE pool_id = %s AND status = %s AND expires_at > %s
            GROUP BY item_id
        )
        SELECT i.id FROM {item_table} i LEFT JOIN live ON live.item_id = i.id
        WHERE i.pool_id = %s AND NOT i.closed AND NOT i.complete
          AND (i.capacity = 0 OR i.submitted_count + COALESCE(live.n, 0) < COALESCE(i.capacity, %s))
          AND NOT EXISTS (SELECT 1 FROM {asg_table} mine WHERE mine.item_id = i.id AND mine.worker_id = %s)
          {excluded_sql}
        ORDER BY (CAST(i.order_key AS BIGINT) * %s + %s) %% %s, i.id
        LIMIT 1
        {lock_sql}
    """
    params = [pool.pk, AssignmentStatus.LEASED, now_db, pool.pk, pool.required_per_item, worker.pk, *exclude,
              a, b, ORDER_PRIME]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


def _lease_if_room(pool: WorkPool, worker, item_id: int, now: datetime) -> Assignment | None:
    """With the item row locked: lease it to the worker if a slot is free by fresh data, else None."""
    room = _room(item_id, now, pool=pool)
    if room is not None and room <= 0:
        return None
    return Assignment.objects.create(
        pool=pool, item_id=item_id, worker=worker, status=AssignmentStatus.LEASED,
        leased_at=now, expires_at=now + timedelta(seconds=pool.lease_seconds),
    )


def _room(item_id: int, now: datetime, *, pool: WorkPool, excluding_worker_id: int | None = None) -> int | None:
    """Free slots on a locked item by fresh data (a new statement): capacity - submitted - live leases,
    0 when closed, None when unlimited. One query."""
    item_table = WorkItem._meta.db_table
    asg_table = Assignment._meta.db_table
    others_sql = "AND a.worker_id <> %s" if excluding_worker_id is not None else ""
    sql = f"""
        SELECT i.closed, i.capacity, i.submitted_count,
               (SELECT COUNT(*) FROM {asg_table} a
                WHERE a.item_id = i.id AND a.status = %s AND a.expires_at > %s {others_sql})
        FROM {item_table} i WHERE i.id = %s
    """
    params = [AssignmentStatus.LEASED, connection.ops.adapt_datetimefield_value(now)]
    if excluding_worker_id is not None:
        params.append(excluding_worker_id)
    params.append(item_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        closed, capacity, submitted, live = cursor.fetchone()
    if closed:
        return 0
    if capacity == WorkItem.UNLIMITED:
        return None
    cap = capacity if capacity is not None else pool.required_per_item
    return cap - submitted - live


# ---- submitting -------------------------------------------------------------------------------------------


def lease_for_submission(item: WorkItem, worker, *, now: datetime | None = None) -> Assignment:
    """Call inside the consumer's transaction.atomic(), right before writing its record. Locks the item and
    returns the worker's assignment if they may submit: a live lease, or a lapsed/released one whose slot is
    still free (the lease is renewed). An already submitted assignment is returned as it is (status
    submitted), so a repeated submission can be recognised and stored once.

    Raises NoLease, SlotTaken, ItemClosed or WorkerExcluded."""
    _require_atomic("lease_for_submission")
    assignment, _ = _lease_for_submission(item.pk, worker.pk, now or timezone.now(), who=str(worker))
    return assignment


def mark_submitted(assignment: Assignment, *, now: datetime | None = None) -> Assignment:
    """Count the worker's submission, in the consumer's transaction after lease_for_submission. Idempotent:
    a second call on a submitted assignment changes nothing. Re-checks the lease (cheap: the row lock is
    already held), so calling it alone is safe too. Updates `assignment` in place and returns it."""
    _require_atomic("mark_submitted")
    now = now or timezone.now()
    who = str(assignment.worker) if "worker" in assignment._state.fields_cache else f"worker {assignment.worker_id}"
    current, item = _lease_for_submission(assignment.item_id, assignment.worker_id, now, who=who)
    if current.status != AssignmentStatus.SUBMITTED:
        capacity = item.effective_capacity(item.pool)
        submitted = item.submitted_count + 1
        if capacity is not None and submitted > capacity:  # cannot happen while every write holds the lock
            raise SlotTaken(f"Item {item.pk} already has its {capacity} submissions.")
        Assignment.objects.filter(pk=current.pk).update(status=AssignmentStatus.SUBMITTED, submitted_at=now)
        WorkItem.objects.filter(pk=item.pk).update(
            submitted_count=F("submitted_count") + 1, complete=capacity is not None and submitted >= capacity
        )
        current.status, current.submitted_at = AssignmentStatus.SUBMITTED, now
    for field in ("status", "leased_at", "expires_at", "submitted_at"):
        setattr(assignment, field, getattr(current, field))
    return assignment


def _lease_for_submission(item_id: int, worker_id: int, now: datetime, *, who: str) -> tuple[Assignment, WorkItem]:
    locked = _lock_item(item_id)
    pool = locked.pool
    # Checked after the lock: exclude_worker locks the same rows, so it either finished before (seen here)
    # or waits for this transaction and then invalidates what it wrote.
    if PoolExclusion.objects.filter(pool_id=pool.pk, worker_id=worker_id).exists():
        raise WorkerExcluded(f"{who} has been excluded from {pool.name!r} and cannot submit there any more.")
    assignment = Assignment.objects.filter(item_id=item_id, worker_id=worker_id).first()
    if assignment is None:
        raise NoLease(f"{who} was never given item {item_id} of {pool.name!r}; ask for the next item first.")
    if assignment.status == AssignmentStatus.SUBMITTED:
        return assignment, locked
    if assignment.status == AssignmentStatus.INVALIDATED:
        raise WorkerExcluded(f"{who}'s work on item {item_id} was invalidated; it cannot be submitted again.")
    if locked.closed:
        raise ItemClosed(f"Item {item_id} of {pool.name!r} is closed; it takes no more submissions.")
    if assignment.is_live(now):
        return assignment, locked
    room = _room(item_id, now, pool=pool, excluding_worker_id=worker_id)
    if room is not None and room <= 0:
        raise SlotTaken(
            f"{who}'s time on item {item_id} ran out and the item was given to someone else; "
            "this answer cannot be counted."
        )
    # Late but the slot is free: renew the lease so the submission that follows is counted.
    assignment.status = AssignmentStatus.LEASED
    assignment.leased_at = now
    assignment.expires_at = now + timedelta(seconds=pool.lease_seconds)
    assignment.save(update_fields=["status", "leased_at", "expires_at"])
    return assignment, locked


# ---- giving back, closing, excluding ----------------------------------------------------------------------


def release(assignment: Assignment) -> Assignment:
    """The worker gives the item back (skips it): the slot is free at once, and claim_next will not offer
    this item to them again. A no-op unless the assignment is leased."""
    with transaction.atomic():
        _lock_item(assignment.item_id)
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.LEASED).update(
            status=AssignmentStatus.RELEASED
        )
        assignment.refresh_from_db(fields=["status"])
    return assignment


def close_item(item: WorkItem) -> WorkItem:
    """Stop handing the item out (settled early); live leases on it are released. Idempotent."""
    with transaction.atomic():
        locked = _lock_item(item.pk)
        if not locked.closed:
            WorkItem.objects.filter(pk=locked.pk).update(closed=True)
        Assignment.objects.filter(item_id=locked.pk, status=AssignmentStatus.LEASED).update(
            status=AssignmentStatus.RELEASED
        )
    item.closed = True
    return item


def exclude_worker(pool: WorkPool, worker, *, by, reason: str = "") -> PoolExclusion:
    """Take the worker out of the pool: no more items, no more submissions. Their submitted assignments
    become invalidated (the counts drop, so those slots are handed out again) and their leases are released;
    the consumer keeps their records but leaves them out of the clean set. Idempotent."""
    with transaction.atomic():
        _lock_worker(pool.pk, worker.pk)  # no claim of theirs can slip in meanwhile
        exclusion, _ = PoolExclusion.objects.get_or_create(
            pool=pool, worker=worker, defaults={"excluded_by": by, "reason": reason}
        )
        mine = Assignment.objects.filter(pool=pool, worker=worker).exclude(status=AssignmentStatus.INVALIDATED)
        item_ids = sorted(set(mine.values_list("item_id", flat=True)))
        # Lock every item they touched, in id order (no deadlock with another exclusion), then re-read their
        # assignments: a submission that was in flight has committed by now, or will see the exclusion.
        list(WorkItem.objects.select_for_update(of=("self",)).filter(pk__in=item_ids).order_by("pk").values_list("pk"))
        submitted = list(mine.filter(status=AssignmentStatus.SUBMITTED).values_list("item_id", flat=True))
        mine.filter(status=AssignmentStatus.LEASED).update(status=AssignmentStatus.RELEASED)
        mine.filter(status=AssignmentStatus.SUBMITTED).update(status=AssignmentStatus.INVALIDATED)
        if submitted:
            WorkItem.objects.filter(pk__in=submitted).update(submitted_count=F("submitted_count") - 1, complete=False)
    return exclusion


def expire_stale_leases(*, now: datetime | None = None, pool: WorkPool | None = None) -> int:
    """Relabel leases past their expiry as expired; returns how many. Housekeeping only: an expired lease
    frees its slot the moment it runs out, with or without this."""
    now = now or timezone.now()
    stale = Assignment.objects.filter(status=AssignmentStatus.LEASED, expires_at__lte=now)
    if pool is not None:
        stale = stale.filter(pool=pool)
    return stale.update(status=AssignmentStatus.EXPIRED)


# ---- helpers ----------------------------------------------------------------------------------------------


def _lock_item(item_id: int) -> WorkItem:
    # of=("self",): lock the item row only, never the pool row every claim reads.
    return WorkItem.objects.select_for_update(of=("self",)).select_related("pool").get(pk=item_id)


def _require_atomic(name: str) -> None:
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError(
            f"queues.{name}() must run inside the consumer's transaction.atomic() block"
        )

