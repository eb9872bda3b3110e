"""Rows of the shared assignment engine: a pool of items, the items, and who holds or submitted which item.

See apps/queues/services.py for how they are handed out; consumers (listening, verification, ...) point
their own rows at a WorkItem with a OneToOneField and never write these tables themselves."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q


def default_lease_seconds() -> int:
    return settings.QUEUE_LEASE_SECONDS


class WorkPool(models.Model):
    """A set of items handed out to workers, each item to `required_per_item` (K) different workers."""

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=50, db_index=True, help_text='the consumer, e.g. "listening"')
    required_per_item = models.PositiveIntegerField(help_text="K: distinct submissions wanted per item")
    lease_seconds = models.PositiveIntegerField(
        default=default_lease_seconds, help_text="how long a claimed item is held for its worker"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    excluded_workers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="PoolExclusion",
        through_fields=("pool", "worker"),
        related_name="excluded_from_pools",
        blank=True,
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(required_per_item__gte=1), name="queues_pool_k_positive"),
            models.CheckConstraint(condition=Q(lease_seconds__gte=1), name="queues_pool_lease_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}, K={self.required_per_item})"


class PoolExclusion(models.Model):
    """A worker taken out of a pool: they get no more items, cannot submit, and their submissions are
    invalidated (kept, but out of the clean set). Records who excluded them and when."""

    pool = models.ForeignKey(WorkPool, on_delete=models.CASCADE, related_name="exclusions")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    excluded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=500, blank=True)
    excluded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pool", "worker"], name="queues_exclusion_once")]

    def __str__(self) -> str:
        return f"{self.worker} excluded from {self.pool}"


class WorkItem(models.Model):
    """One thing to hand out. `capacity` None means the pool's K; UNLIMITED means once per worker, no cap
    (gold items every worker should see)."""

    UNLIMITED = 0

    # Indexed by (pool, order_key) below, not by pool alone: the claim reads a range of keys of one pool,
    # and a pool-only index let the planner, on statistics taken when the table was small, read the whole
    # pool once per bucket of the walk (apps.queues.ordering).
    pool = models.ForeignKey(WorkPool, on_delete=models.CASCADE, related_name="items", db_index=False)
    capacity = models.PositiveIntegerField(
        null=True, blank=True, help_text="empty: the pool's K; 0: unlimited (once per worker)"
    )
    closed = models.BooleanField(default=False, help_text="settled early: no more handouts")
    order_key = models.IntegerField(help_text="random key; each worker sees the items in a permutation of it")
    submitted_count = models.PositiveIntegerField(default=0, help_text="denormalised; written under the row lock")
    # Denormalised as well: submitted_count has reached the capacity. Lets the claim query scan only items
    # that still need work (partial index below) instead of the whole pool.
    complete = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["pool", "order_key"], condition=Q(closed=False, complete=False), name="queues_item_open"),
            models.Index(fields=["pool", "order_key"], name="queues_item_pool_order"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(capacity__isnull=True) | Q(capacity=0) | Q(submitted_count__lte=F("capacity")),
                name="queues_item_not_over_capacity",
            ),
        ]

    def __str__(self) -> str:
        return f"item {self.pk} of pool {self.pool_id}"

    def effective_capacity(self, pool: WorkPool | None = None) -> int | None:
        """The number of submissions this item takes, or None for unlimited."""
        if self.capacity == self.UNLIMITED:
            return None
        if self.capacity is not None:
            return self.capacity
        return (pool or self.pool).required_per_item


class AssignmentStatus(models.TextChoices):
    LEASED = "leased", "Leased"
    SUBMITTED = "submitted", "Submitted"
    RELEASED = "released", "Released"  # skipped: "later", offered again when no one else can take it
    DECLINED = "declined", "Declined"  # skipped with a reason: never offered to this worker again
    EXPIRED = "expired", "Expired"
    INVALIDATED = "invalidated", "Invalidated"


def live_lease(now, *, through: str = "") -> Q:
    """The one rule for a live lease: leased, and its expiry still ahead. `through` prefixes the lookups
    for a query from a related model (through="assignments__")."""
    return Q(**{f"{through}status": AssignmentStatus.LEASED, f"{through}expires_at__gt": now})


class AssignmentQuerySet(models.QuerySet):
    def live(self, now):
        """Leases running at `now` (they hold a slot)."""
        return self.filter(live_lease(now))

    def lapsed(self, now):
        """Rows still labelled leased whose expiry has passed: they hold no slot (housekeeping relabels them)."""
        return self.filter(status=AssignmentStatus.LEASED, expires_at__lte=now)


class Assignment(models.Model):
    """A worker's hold on (or submission for) one item. One row per (item, worker), ever: a worker whose
    lease lapsed and who comes back reuses the row. A lease is live while status is leased and
    expires_at is in the future; a leased row past its expiry counts as expired everywhere, whether or not
    housekeeping has relabelled it yet."""

    Status = AssignmentStatus

    # Denormalised from item.pool so "this worker's lease in this pool" and "live leases in this pool" are
    # single index lookups. No index of a key alone: the composite indexes below lead with each key, and a
    # one-column index on the worker let the planner, on statistics from a nearly empty table, answer the
    # claim's "is this item theirs?" by reading all of the worker's rows, once per item.
    pool = models.ForeignKey(WorkPool, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    item = models.ForeignKey(WorkItem, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_assignments",
                               db_index=False)
    status = models.CharField(max_length=20, choices=AssignmentStatus.choices, default=AssignmentStatus.LEASED)
    leased_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    # db_default: the claim writes leases with a raw INSERT that names only the lease columns.
    decline_reason = models.CharField(max_length=500, blank=True, db_default="", help_text="why the worker declined the item")

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "worker"], name="queues_assignment_once_per_worker"),
            models.CheckConstraint(
                condition=~Q(status=AssignmentStatus.SUBMITTED) | Q(submitted_at__isnull=False),
                name="queues_assignment_submitted_has_time",
            ),
        ]
        indexes = [
            models.Index(fields=["pool", "expires_at"], condition=Q(status="leased"), name="queues_asg_live"),
            models.Index(fields=["pool", "worker"], condition=Q(status="leased"), name="queues_asg_worker_live"),
            models.Index(fields=["worker", "item"], name="queues_asg_worker_item"),
            models.Index(fields=["pool", "status"], name="queues_asg_pool_status"),
            # One worker's items in a pool: the NOT IN of the claim query, and the last one they were given.
            models.Index(fields=["pool", "worker", "id"], name="queues_asg_pool_worker_id"),
            # Live leases of one item: the capacity check under the row lock.
            models.Index(fields=["item", "expires_at"], condition=Q(status="leased"), name="queues_asg_item_live"),
        ]

    def __str__(self) -> str:
        return f"{self.worker} on item {self.item_id}: {self.status}"

    def is_live(self, now) -> bool:
        return self.status == AssignmentStatus.LEASED and self.expires_at > now
