"""Helpers for the assignment-engine tests: a pool factory and a submit() that does what a consumer does."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from apps.queues import services


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
