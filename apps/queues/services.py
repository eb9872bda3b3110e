"""The shared assignment engine: hand each item of a pool to K different workers, one item at a time.

How it works
------------
A worker asks for work with `claim_next(pool, worker)`. The engine picks the first item in that worker's own
shuffled order (apps/queues/ordering.py: a seeded permutation, walked a bucket of keys at a time) that still
has a free slot, and writes a *lease*: an Assignment row (status leased, expires_at = now +
pool.lease_seconds). A slot is free while

    submitted_count + live leases < capacity        (capacity = the pool's K unless the item says otherwise)

where a live lease is a leased row whose expires_at is still ahead. Every change to an item's leases or
submissions happens while holding that item's row lock (SELECT ... FOR UPDATE), and each capacity check
is a statement that starts after the lock was granted, so the sum above never exceeds the capacity,
whatever the number of concurrent workers. A unique (item, worker) constraint means nobody gets the same
item twice; a per-(pool, worker) advisory lock means two tabs of one worker never lease two items.

Why SKIP LOCKED: the claim query locks the chosen item with FOR UPDATE SKIP LOCKED. A worker never queues
behind another worker's claim or submission on the same item; it takes the next item in its own order
instead. Different workers walk the pool in different orders, so they rarely even meet. The query's view
of the live leases comes from its snapshot, which may be a few milliseconds old by the time the row lock
is granted, so the lease is only written by an INSERT ... SELECT that checks the slot again (a stale
candidate is skipped). If every remaining candidate is momentarily locked by someone else, the claim does
not answer "nothing left": it rolls back and waits for those rows one at a time (each in a savepoint, so
it never holds one item while waiting for another). SQLite has no row locks: there the settings make
every transaction BEGIN IMMEDIATE, which serialises writers, so the same code is correct, just not
concurrent. The claim is one indexed query whose plan does not depend on the planner's statistics: it
walks the worker's order a bucket of keys at a time from where they are (apps/queues/ordering.py) and
removes the worker's own items with a probe per item (a scalar subquery), never an anti-join, whose plan
turned into a nested loop of hundreds of milliseconds on a fresh pool.

Leases and late submissions: a lease that runs out frees its slot for someone else (nothing needs to run
for that: "live" is defined by expires_at; `expire_stale_leases` only relabels old rows). A consumer saves
a submission inside its own transaction.atomic(): `lease_for_submission(item, worker)` locks the item and
accepts if the worker still holds a live lease, or if the lease lapsed (or was released) but the slot is
still free, in which case the lease is renewed; otherwise it raises SlotTaken. Then the consumer writes its
record and calls `mark_submitted(assignment)`, which turns the lease into a submission and counts it
(refusing, rather than exceeding K, whatever clocks the callers used). Both calls are idempotent, so a
repeated submission stores one record. Claims commit asynchronously (synchronous_commit off, for that
transaction only): a lease lost in a database crash just means the item is offered again; submissions
commit durably.

Coming back to an item: once a worker's lease ran out, or they skipped the item (`release`: "later"), the
fresh claim above never offers it to them again, so that others get it first. When nothing fresh is left
for them, `claim_next` offers such an item again if no one else can take it: fewer eligible workers who
never held it than the item still needs (the consumer says who is eligible with
`register_eligible_workers`; without that, nobody else is assumed). A worker who declines an item for a
reason (`decline`) is never offered it again. apps.queues.selectors.unreachable_items lists what cannot
reach its count with the people available, and why.

Consumers use: create_pool, add_items, claim_next, lease_for_submission + mark_submitted (or, for the common
case in one statement, submit_in_one_statement), release, decline, close_item, exclude_worker,
register_eligible_workers; and apps.queues.selectors for reads. The refusals
(NoLease, SlotTaken, ItemClosed, WorkerExcluded) subclass QueueError, an apps.core.errors.Conflict: an API
view lets one propagate and answers 409 with its code.
"""

import os
import random
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from datetime import datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, Q
from django.utils import timezone
from django.utils.translation import gettext

from apps.core import limits
from apps.core.bulk import insert_rows
from apps.core.errors import Conflict
from apps.core.limits import bounded
from apps.queues import sql
from apps.queues.models import Assignment, AssignmentStatus, PoolExclusion, WorkItem, WorkPool
from apps.queues.ordering import ORDER_PRIME, order_seed, position

__all__ = [
    "QueueError", "NoLease", "SlotTaken", "ItemClosed", "WorkerExcluded",
    "create_pool", "add_items", "claim_next", "lease_for_submission", "mark_submitted", "submit_in_one_statement",
    "release", "decline",
    "close_item", "exclude_worker", "expire_stale_leases", "register_eligible_workers", "eligible_worker_ids",
]


class QueueError(Conflict):
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


def add_items(pool: WorkPool, count: int, *, capacity: int | None = None) -> list[int]:
    """Create `count` items, each with a random order key; returns their ids. capacity: None for the pool's
    K, WorkItem.UNLIMITED for gold items every worker should get once, or a number. One statement per 5,000
    items, no model instance per item (apps.core.bulk): an import of 100,000 clips adds as many."""
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a whole number, not {count!r}")
    if capacity is not None and (not isinstance(capacity, int) or capacity < 0):
        raise ValueError(f"capacity must be None, WorkItem.UNLIMITED or a positive number, not {capacity!r}")
    rng = random.Random(os.urandom(32))  # seeded by the system: unpredictable, without a system call per key
    rows = [(pool.pk, capacity, rng.randrange(ORDER_PRIME)) for _ in range(count)]
    return [item_id for (item_id,) in insert_rows(WorkItem, ("pool_id", "capacity", "order_key"), rows, returning=("id",))]


# ---- who may work on a pool --------------------------------------------------------------------------------

_ELIGIBLE: dict[str, Callable[[WorkPool], Iterable[int]]] = {}


def register_eligible_workers(kind: str):
    """Decorator: `fn(pool) -> user ids` names everyone who may work on pools of this kind (the listeners
    a test is assigned to, every annotator...). The engine uses it to decide whether an expired or skipped
    item must come back to the same worker, and to explain items that cannot reach their count."""

    def register(fn):
        _ELIGIBLE[kind] = fn
        return fn

    return register


def eligible_worker_ids(pool: WorkPool) -> set[int] | None:
    """Who may work on the pool, excluded workers left out; None when its kind registered no rule."""
    fn = _ELIGIBLE.get(pool.kind)
    if fn is None:
        return None
    excluded = set(PoolExclusion.objects.filter(pool=pool).values_list("worker_id", flat=True))
    return set(fn(pool)) - excluded


# ---- claiming ---------------------------------------------------------------------------------------------

# How many of the worker's next items the fast claim looks at. Other workers walk other orders, so it is rare
# that all of them are locked at once; when they are, the claim widens to the whole pool.
CLAIM_WINDOW = 16


def claim_next(pool: WorkPool, worker, *, now: datetime | None = None) -> Assignment | None:
    """The worker's current item in this pool, leasing the next one in their own order if they hold none.
    None when nothing is left for them (or they are excluded)."""
    now = now or timezone.now()
    # A lease is cheap to lose: if the database crashed right after this commit, the worker would just be
    # offered an item again. So when the claim is its own transaction, it need not wait for the WAL flush.
    own_transaction = not transaction.get_connection().in_atomic_block
    try:
        with transaction.atomic():
            return _claim(pool, worker, now, wait=False, async_commit=own_transaction)
    except _MustWait:
        # Rolled back, which also dropped the row locks the fast attempt held; now wait for busy items.
        with transaction.atomic():
            return _claim(pool, worker, now, wait=True, async_commit=own_transaction)


class _MustWait(Exception):
    """Every candidate left was locked by someone else a moment ago: whether it still has room is unknown."""


class _NoRoom(Exception):
    def __init__(self, item_id: int):
        self.item_id = item_id


def _claim(pool: WorkPool, worker, now: datetime, *, wait: bool, async_commit: bool) -> Assignment | None:
    # Two tabs of the same worker must not both lease an item; other workers are not held up by this.
    _lock_worker(pool.pk, worker.pk, async_commit=async_commit)
    held = _own_live_lease(pool, worker, now)
    if held is not None:
        return held
    tried: list[int] = []
    if not wait:
        for window in (CLAIM_WINDOW, None):
            while (item_id := sql.candidate_id(pool, worker.pk, now, exclude=tried, window=window, lock="skip")) is not None:
                assignment = _lease_if_room(pool, worker, item_id, now)
                if assignment is not None:
                    return assignment
                # The query's snapshot was stale: someone filled the slot just before we got the lock. Keep
                # the lock (released at commit) and try the next item in this worker's order.
                tried.append(item_id)
        if connection.features.has_select_for_update_skip_locked and sql.candidate_id(
            pool, worker.pk, now, exclude=tried, window=None, lock="none"
        ) is not None:
            raise _MustWait
        return _offer_again(pool, worker, now)
    # Slow path (PostgreSQL): wait for each busy candidate in turn. The candidate is chosen without locking
    # and then locked alone: a locking query with ORDER BY ... LIMIT would keep the locks of rows that fail
    # its re-check and lock the next ones too. Each attempt runs in a savepoint that is rolled back when the
    # item turns out full, so no item lock is held while waiting for another (no deadlock).
    while True:
        try:
            with transaction.atomic():
                item_id = sql.candidate_id(pool, worker.pk, now, exclude=tried, window=None, lock="none")
                if item_id is None:
                    return _offer_again(pool, worker, now)
                WorkItem.objects.select_for_update().filter(pk=item_id).values_list("pk").first()
                assignment = _lease_if_room(pool, worker, item_id, now)
                if assignment is None:
                    raise _NoRoom(item_id)
                return assignment
        except _NoRoom as no_room:
            tried.append(no_room.item_id)


def _offer_again(pool: WorkPool, worker, now: datetime) -> Assignment | None:
    """Nothing fresh is left for the worker: lease them again an item whose lease ran out or that they
    skipped, if it still has a free slot and no one else can take it (fewer eligible workers who never held
    it than the slots it still needs). Items they declined or submitted never come back."""
    if PoolExclusion.objects.filter(pool=pool, worker=worker).exists():
        return None
    mine = (
        Assignment.objects.filter(pool=pool, worker=worker, item__closed=False, item__complete=False)
        .filter(
            Q(status__in=[AssignmentStatus.EXPIRED, AssignmentStatus.RELEASED])
            | Q(status=AssignmentStatus.LEASED, expires_at__lte=now)
        )
        .select_related("item")
    )
    seed = order_seed(pool.pk, worker.pk)
    candidates = sorted(mine, key=lambda a: (position(a.item.order_key, seed), a.item_id))
    if not candidates:
        return None
    eligible = eligible_worker_ids(pool)
    held_by_others: dict[int, set[int]] = {}
    if eligible is not None:
        rows = Assignment.objects.filter(item_id__in=[a.item_id for a in candidates], worker_id__in=eligible)
        for item_id, worker_id in rows.exclude(worker=worker).values_list("item_id", "worker_id"):
            held_by_others.setdefault(item_id, set()).add(worker_id)
    for assignment in candidates:
        item = assignment.item
        # The lock a submission takes; an item someone is busy with is left for the next claim.
        locked = WorkItem.objects.select_for_update(of=("self",), skip_locked=True).filter(pk=item.pk).first()
        if locked is None or locked.closed or locked.complete:
            continue
        capacity = locked.effective_capacity(pool)
        if capacity is None:
            continue  # gold items: once per worker, and this worker had theirs
        live_others = Assignment.objects.filter(
            item_id=item.pk, status=AssignmentStatus.LEASED, expires_at__gt=now
        ).exclude(worker=worker).count()
        free = capacity - locked.submitted_count - live_others
        if free <= 0:
            continue
        if eligible is not None:
            fresh_others = len(eligible - {worker.pk} - held_by_others.get(item.pk, set()))
            if fresh_others >= free:
                continue  # others who never had it can fill it; it waits for them
        expires = now + timedelta(seconds=pool.lease_seconds)
        Assignment.objects.filter(pk=assignment.pk).update(
            status=AssignmentStatus.LEASED, leased_at=now, expires_at=expires, decline_reason=""
        )
        assignment.status, assignment.leased_at, assignment.expires_at = AssignmentStatus.LEASED, now, expires
        return assignment
    return None


def _lock_worker(pool_id: int, worker_id: int, *, async_commit: bool = False) -> None:
    if connection.vendor == "postgresql":
        sql.lock_worker(pool_id, worker_id, async_commit=async_commit)


def _own_live_lease(pool: WorkPool, worker, now: datetime) -> Assignment | None:
    leased = sql.leases_of(pool.pk, worker.pk)
    stale = [a.pk for a in leased if not a.is_live(now)]
    if stale:
        # Relabel only; a leased row past its expiry already counts as free everywhere.
        Assignment.objects.lapsed(now).filter(pk__in=stale).update(
            status=AssignmentStatus.EXPIRED
        )
    return next((a for a in leased if a.is_live(now)), None)


def _lease_if_room(pool: WorkPool, worker, item_id: int, now: datetime) -> Assignment | None:
    """With the item row locked: lease it to the worker if a slot is free by fresh data (this statement's
    snapshot is taken after the lock was granted), else None. Check and insert in one statement."""
    expires = now + timedelta(seconds=pool.lease_seconds)
    assignment_id = sql.lease_if_room(pool, worker.pk, item_id, now, expires)
    if assignment_id is None:
        return None
    assignment = Assignment(
        pk=assignment_id, pool=pool, item_id=item_id, worker=worker, status=AssignmentStatus.LEASED,
        leased_at=now, expires_at=expires,
    )
    assignment._state.adding = False
    assignment._state.db = connection.alias
    return assignment


# ---- submitting -------------------------------------------------------------------------------------------


def lease_for_submission(item: WorkItem, worker, *, now: datetime | None = None, locked: bool = False) -> Assignment:
    """Call inside the consumer's transaction.atomic(), right before writing its record. Locks the item and
    returns the worker's assignment if they may submit: a live lease, or a lapsed/released one whose slot is
    still free (the lease is renewed). An already submitted assignment is returned as it is (status
    submitted), so a repeated submission can be recognised and stored once.

    `locked=True` says the caller already holds the item's row lock in this transaction and read `item` (with
    its pool) under it (select_for_update(of=("self",)).select_related("pool")): it is not locked twice.

    Raises NoLease, SlotTaken, ItemClosed or WorkerExcluded."""
    _require_atomic("lease_for_submission")
    return _lease_for_submission(item.pk, worker.pk, now or timezone.now(), who=str(worker),
                                 locked=item if locked else None)


def mark_submitted(assignment: Assignment, *, now: datetime | None = None) -> Assignment:
    """Count the worker's submission, in the consumer's transaction after lease_for_submission. Idempotent:
    a second call on a submitted assignment changes nothing. Safe on its own too: anything but a live lease
    goes through lease_for_submission's checks first. Updates `assignment` in place and returns it, with
    `item_complete`: whether the item now has all its submissions (None when this call counted nothing),
    so a consumer settling the item need not read it again."""
    _require_atomic("mark_submitted")
    now = now or timezone.now()
    for attempt in range(2):
        # A live lease becomes a submission: submitted + live leases stays the same, so no count is needed.
        converted = Assignment.objects.live(now).filter(pk=assignment.pk).update(
            status=AssignmentStatus.SUBMITTED, submitted_at=now
        )
        if converted:
            assignment.item_complete = _count_submission(assignment.item_id)
            assignment.status, assignment.submitted_at = AssignmentStatus.SUBMITTED, now
            return assignment
        if attempt:
            break
        who = str(assignment.worker) if "worker" in assignment._state.fields_cache else f"worker {assignment.worker_id}"
        current = _lease_for_submission(assignment.item_id, assignment.worker_id, now, who=who)
        for field in ("status", "leased_at", "expires_at", "submitted_at"):
            setattr(assignment, field, getattr(current, field))
        if current.status == AssignmentStatus.SUBMITTED:
            assignment.item_complete = None
            return assignment  # already counted
    raise NoLease(gettext(
        "Assignment %(pk)s could not be counted; ask for the item again."
    ) % {"pk": assignment.pk})  # pragma: no cover


def _count_submission(item_id: int) -> bool:
    """Add one submission to the item and say whether it is now complete; refuses (and so rolls back the
    consumer's transaction) rather than going over the capacity, whatever clock the callers used."""
    complete = sql.count_submission(item_id)
    if complete is None:
        raise SlotTaken(gettext(
            "Item %(item_id)s already has all its submissions; this one cannot be counted."
        ) % {"item_id": item_id})
    return complete


def submit_in_one_statement(record: sql.Record, *, item_id: int, worker_id: int, now: datetime,
                            guard: sql.Guard = sql.TRUE) -> tuple[tuple, bool] | None:
    """The common case of a submission (lease_for_submission, the consumer's record, mark_submitted) as one
    statement, one round trip: (the record's RETURNING row, whether the item is now complete). None when
    the common case does not hold, or off PostgreSQL: the consumer then takes its careful path, which also
    says why.

    The common case: the item is open with a free count (checked on its latest version once its row lock
    is granted, as every writer of its leases and counts takes it), the worker holds a live lease on it and
    is not excluded, and the consumer's `guard` (a condition on the lease row `a`) holds. Then the lease
    becomes a submission, the count goes up and `record`, the consumer's `INSERT ... SELECT ... FROM
    counted RETURNING ...`, stores its record: all of it or none. The INSERT must make one row for the row
    of `counted` whatever else holds (its conditions belong in the guard): the statement commits as a
    whole. A lease someone changed meanwhile (a duplicate submission, a release, an exclusion) is re-read
    by the UPDATE itself, so it is never counted twice; the guard reads the statement's snapshot, so it
    should ask only about the worker's own rows. Guard and Record (apps/queues/sql.py) check their SQL
    when they are made: named placeholders, each with its value, nothing that ends the statement."""
    if not isinstance(record, sql.Record) or not isinstance(guard, sql.Guard):
        raise TypeError("submit_in_one_statement takes a queues.sql.Record and Guard, not SQL text")
    if connection.vendor != "postgresql":
        return None
    # Alone, the statement is its own transaction (no BEGIN and COMMIT round trips); inside a caller's
    # transaction, a savepoint keeps that transaction usable should the record's INSERT be refused.
    inside = transaction.get_connection().in_atomic_block
    try:
        with transaction.atomic() if inside else nullcontext():
            row = sql.submit_counted(record, item_id=item_id, worker_id=worker_id, now=now, guard=guard)
    except IntegrityError:
        return None  # a concurrent copy of the record won; the careful path answers as that one did
    return (row[1:], bool(row[0])) if row else None


def _lease_for_submission(item_id: int, worker_id: int, now: datetime, *, who: str,
                          locked: WorkItem | None = None) -> Assignment:
    locked = locked or _lock_item(item_id)
    pool = locked.pool
    # Read after the lock (a new statement, so a fresh snapshot): a concurrent submission, release or
    # exclusion that held the lock before us is visible here.
    assignment = (
        Assignment.objects.filter(item_id=item_id, worker_id=worker_id)
        .annotate(excluded=Exists(PoolExclusion.objects.filter(pool_id=pool.pk, worker_id=worker_id)))
        .first()
    )
    if assignment is None:
        if PoolExclusion.objects.filter(pool_id=pool.pk, worker_id=worker_id).exists():
            raise WorkerExcluded(gettext(
                "%(who)s has been excluded from %(name)r and cannot submit there any more."
            ) % {"who": who, "name": pool.name})
        raise NoLease(gettext(
            "%(who)s was never given item %(item_id)s of %(name)r; ask for the next item first."
        ) % {"who": who, "item_id": item_id, "name": pool.name})
    if assignment.excluded:
        raise WorkerExcluded(gettext(
            "%(who)s has been excluded from %(name)r and cannot submit there any more."
        ) % {"who": who, "name": pool.name})
    if assignment.status == AssignmentStatus.SUBMITTED:
        return assignment
    if assignment.status == AssignmentStatus.INVALIDATED:
        raise WorkerExcluded(gettext(
            "%(who)s's work on item %(item_id)s was invalidated; it cannot be submitted again."
        ) % {"who": who, "item_id": item_id})
    if assignment.status == AssignmentStatus.DECLINED:
        raise NoLease(gettext(
            "%(who)s declined item %(item_id)s of %(name)r; it goes to someone else."
        ) % {"who": who, "item_id": item_id, "name": pool.name})
    if locked.closed:
        raise ItemClosed(gettext(
            "Item %(item_id)s of %(name)r is closed; it takes no more submissions."
        ) % {"item_id": item_id, "name": pool.name})
    if assignment.is_live(now):
        return assignment
    # Late (expired or released): accepted only if the slot is still free, counting everyone else's leases.
    expires = now + timedelta(seconds=pool.lease_seconds)
    renewed = sql.renew_late_lease(assignment.pk, item_id=item_id, worker_id=worker_id, now=now, expires=expires,
                                   required_per_item=pool.required_per_item)
    if not renewed:
        raise SlotTaken(
            gettext(
                "%(who)s's time on item %(item_id)s ran out and the item was given to someone else; this "
                "answer cannot be counted."
            ) % {"who": who, "item_id": item_id}
        )
    assignment.status, assignment.leased_at, assignment.expires_at = AssignmentStatus.LEASED, now, expires
    return assignment


# ---- giving back, closing, excluding ----------------------------------------------------------------------


def release(assignment: Assignment) -> Assignment:
    """The worker gives the item back for later (skips it): the slot is free at once; claim_next offers it
    to them again only when nothing fresh is left and no one else can take it. A no-op unless leased."""
    with transaction.atomic():
        _lock_item(assignment.item_id)
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.LEASED).update(
            status=AssignmentStatus.RELEASED
        )
        assignment.refresh_from_db(fields=["status"])
    return assignment


def decline(assignment: Assignment, *, reason: str) -> Assignment:
    """The worker will not do this item, for a reason (a conflict of interest, audio they cannot judge...):
    the slot is free at once and the item is never offered to them again. A no-op unless leased."""
    bounded(reason, field="reason", limit=limits.NOTE)
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("declining an item needs a reason; without one, skip it for later")
    with transaction.atomic():
        _lock_item(assignment.item_id)
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.LEASED).update(
            status=AssignmentStatus.DECLINED, decline_reason=reason[:500]
        )
        assignment.refresh_from_db(fields=["status", "decline_reason"])
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
    bounded(reason, field="reason", limit=limits.NOTE)
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
        mine.filter(status=AssignmentStatus.LEASED).update(status=AssignmentStatus.RELEASED)
        submitted = sql.invalidate_submissions(pool.pk, worker.pk)
        if submitted:
            WorkItem.objects.filter(pk__in=submitted).update(submitted_count=F("submitted_count") - 1, complete=False)
    return exclusion


def expire_stale_leases(*, now: datetime | None = None, pool: WorkPool | None = None) -> int:
    """Relabel leases past their expiry as expired; returns how many. Housekeeping only: an expired lease
    frees its slot the moment it runs out, with or without this."""
    now = now or timezone.now()
    stale = Assignment.objects.lapsed(now)
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

