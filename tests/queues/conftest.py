"""Helpers for the assignment-engine tests: a pool factory, a submit() that does what a consumer does, and two
reads only tests need (a worker's order, submissions per worker)."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from apps.queues import services
from apps.queues.models import Assignment, AssignmentStatus, WorkItem
from apps.queues.ordering import order_seed, position


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """These tests create many users; the default PBKDF2 hashing would take a second each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_pool(db):
    def make(items: int = 10, *, k: int = 3, lease_seconds: int = 600, name: str = "pool", capacity=None):
        pool = services.create_pool(name=name, kind="test", required_per_item=k, lease_seconds=lease_seconds)
        services.add_items(pool, items, capacity=capacity)
        return pool

    return make


def submit(item, worker, *, now=None):
    """What a consumer does on a submission: lock and check, (write its record), count it."""
    with transaction.atomic():
        assignment = services.lease_for_submission(item, worker, now=now)
        return services.mark_submitted(assignment, now=now)


def later(seconds: float, *, start=None):
    return (start or timezone.now()) + timedelta(seconds=seconds)


def worker_order(pool, worker) -> list[int]:
    """Item ids of the pool in this worker's order, by the engine's own key (apps.queues.ordering), the
    order claim_next's SQL must walk."""
    seed = order_seed(pool.pk, worker.pk)
    keys = WorkItem.objects.filter(pool=pool).values_list("id", "order_key")
    return [item_id for item_id, key in sorted(keys, key=lambda row: (position(row[1], seed), row[0]))]


def worker_counts(pool) -> dict[int, int]:
    """{user id: valid submissions in this pool} for every worker with at least one."""
    rows = (Assignment.objects.filter(pool=pool, status=AssignmentStatus.SUBMITTED)
            .values("worker_id").annotate(n=Count("id")).order_by("worker_id"))
    return {row["worker_id"]: row["n"] for row in rows}
