"""Reads over the assignment engine: progress of a pool, a worker's current lease and what is left for them."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q
from django.utils import timezone

from apps.queues import sql
from apps.queues.models import Assignment, AssignmentStatus, PoolExclusion, WorkItem, WorkPool, live_lease
from apps.queues.services import eligible_worker_ids


def live_assignment(pool: WorkPool, worker, *, now: datetime | None = None) -> Assignment | None:
    """The worker's live lease in this pool, if any (what claim_next would hand back)."""
    now = now or timezone.now()
    return (
        Assignment.objects.live(now).filter(pool=pool, worker=worker)
        .order_by("leased_at", "id")
        .first()
    )


def pool_progress(pool: WorkPool, *, now: datetime | None = None) -> dict:
    """Counts for a progress page, in three queries:
    - items: all items; gold: items with unlimited capacity (left out of by_submitted); closed
    - by_submitted: {n: items with n submissions} for n = 0..K (and above K if some item takes more)
    - complete: items with all their submissions; open: items still being handed out
    - submissions: valid submissions; live_leases: leases running now; excluded_workers
    - required_per_item: K"""
    now = now or timezone.now()
    k = pool.required_per_item
    items = WorkItem.objects.filter(pool=pool)
    # Aggregate aliases must not shadow field names (closed, complete), hence the n_ prefix.
    raw = items.aggregate(
        n_items=Count("id"),
        n_gold=Count("id", filter=Q(capacity=WorkItem.UNLIMITED)),
        n_closed=Count("id", filter=Q(closed=True)),
        n_complete=Count("id", filter=Q(complete=True)),
        n_open=Count("id", filter=Q(closed=False, complete=False)),
    )
    totals = {key.removeprefix("n_"): value for key, value in raw.items()}
    by_submitted = dict.fromkeys(range(k + 1), 0)
    rows = (
        items.exclude(capacity=WorkItem.UNLIMITED)
        .values("submitted_count")
        .annotate(n=Count("id"))
        .order_by("submitted_count")
    )
    for row in rows:
        by_submitted[row["submitted_count"]] = row["n"]
    asg = Assignment.objects.filter(pool=pool).aggregate(
        submissions=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
        live_leases=Count("id", filter=live_lease(now)),
    )
    return {
        "required_per_item": k,
        **totals,
        "by_submitted": by_submitted,
        **asg,
        "excluded_workers": PoolExclusion.objects.filter(pool=pool).count(),
    }


def submitted_by(pool_id: int, worker) -> int:
    """How many of the pool's items the worker submitted and that still count (not invalidated). A
    prepared statement: a listener's progress comes with every rating."""
    return sql.submitted_count(pool_id, worker.pk)


def is_excluded(pool: WorkPool, worker) -> bool:
    return PoolExclusion.objects.filter(pool=pool, worker=worker).exists()


def remaining_for_worker(pool: WorkPool, worker, *, now: datetime | None = None) -> int:
    """How many items this worker could still be given if nobody else took them (open items they have no
    assignment for and whose slots are not all taken right now)."""
    now = now or timezone.now()
    if is_excluded(pool, worker):
        return 0
    candidates = (
        WorkItem.objects.filter(pool=pool, closed=False, complete=False)
        .exclude(assignments__worker=worker)
        .annotate(
            live=Count(
                "assignments",
                filter=live_lease(now, through="assignments__"),
            )
        )
        .values_list("capacity", "submitted_count", "live")
    )
    k = pool.required_per_item
    return sum(
        1 for capacity, submitted, live in candidates
        if capacity == WorkItem.UNLIMITED or submitted + live < (capacity if capacity is not None else k)
    )


@dataclass(frozen=True)
class Unreachable:
    """An item that cannot reach its count with the people available, and why."""

    item_id: int
    submitted: int
    needed: int  # submissions still missing
    available: int  # eligible workers who could still give one (never held it, or skipped it or let it lapse)
    declined: list[tuple[int, str]]  # (worker id, reason)
    submitted_by: int
    excluded: int

    @property
    def why(self) -> str:
        parts = [f"needs {self.needed} more, but only {self.available} of the people who may work on it could still take it"]
        if self.submitted_by:
            parts.append(f"{self.submitted_by} already submitted")
        if self.declined:
            parts.append(f"{len(self.declined)} declined ({'; '.join(reason for _w, reason in self.declined)})")
        if self.excluded:
            parts.append(f"{self.excluded} excluded")
        return ", ".join(parts)


def unreachable_items(pool: WorkPool, *, limit: int = 200) -> list[Unreachable] | None:
    """Open items that cannot get their missing submissions from the eligible workers (as the pool's kind
    defines them; None when it defines none). Someone who skipped an item or let its lease lapse still
    counts as available: the engine offers it to them again when no one else can take it."""
    eligible = eligible_worker_ids(pool)
    if eligible is None:
        return None
    excluded = set(PoolExclusion.objects.filter(pool=pool).values_list("worker_id", flat=True))
    k = pool.required_per_item
    open_items = list(
        WorkItem.objects.filter(pool=pool, closed=False, complete=False)
        .exclude(capacity=WorkItem.UNLIMITED)
        .values_list("id", "capacity", "submitted_count")
    )
    if len(eligible) >= max((c if c is not None else k for _i, c, _s in open_items), default=k):
        # Enough people for a full count: only items some of them are out of can fall short. Read just those.
        touched = set(
            Assignment.objects.filter(pool=pool, status__in=[AssignmentStatus.DECLINED, AssignmentStatus.SUBMITTED])
            .values_list("item_id", flat=True)
        )
        open_items = [row for row in open_items if row[0] in touched]
    done: dict[int, dict] = {}
    rows = Assignment.objects.filter(pool=pool, item_id__in=[row[0] for row in open_items]).values_list(
        "item_id", "worker_id", "status", "decline_reason"
    )
    for item_id, worker_id, status, reason in rows:
        entry = done.setdefault(item_id, {"out": set(), "declined": [], "submitted": 0, "excluded": 0})
        if worker_id in excluded:
            entry["excluded"] += 1
        elif status == AssignmentStatus.SUBMITTED:
            entry["out"].add(worker_id)
            entry["submitted"] += 1
        elif status == AssignmentStatus.DECLINED:
            entry["out"].add(worker_id)
            entry["declined"].append((worker_id, reason))
    result = []
    for item_id, capacity, submitted in open_items:
        entry = done.get(item_id, {"out": set(), "declined": [], "submitted": 0, "excluded": 0})
        needed = (capacity if capacity is not None else k) - submitted
        available = len(eligible - entry["out"])
        if needed > available:
            result.append(Unreachable(
                item_id=item_id, submitted=submitted, needed=needed, available=available,
                declined=entry["declined"], submitted_by=entry["submitted"], excluded=entry["excluded"],
            ))
            if len(result) >= limit:
                break
    return result
