"""The read-only admin pages, the 409 helper for consumers' APIs, and the housekeeping task."""

import pytest
from django.urls import reverse

from apps.core.errors import Conflict
from apps.queues import services
from apps.queues.models import Assignment, PoolExclusion, WorkItem, WorkPool
from tests.queues.conftest import later, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(make_user):
    user = make_user("root_admin", "admin")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


def test_the_admin_shows_pools_items_assignments_and_exclusions_read_only(make_pool, listeners, superuser, client_for):
    pool = make_pool(3, k=2)
    submit(services.claim_next(pool, listeners[0]).item, listeners[0])
    services.claim_next(pool, listeners[1])
    services.exclude_worker(pool, listeners[2], by=superuser)
    client = client_for(superuser)
    for model in (WorkPool, WorkItem, Assignment, PoolExclusion):
        opts = model._meta
        listing = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        assert listing.status_code == 200, opts.model_name
        add_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
        assert add_url.encode() not in listing.content  # no "Add" button
        assert client.get(add_url).status_code == 403
        detail = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[model.objects.first().pk]))
        assert detail.status_code == 200
        assert b'name="_save"' not in detail.content  # nothing to save
    page = client.get(reverse("admin:queues_workpool_change", args=[pool.pk])).content.decode()
    assert "1 submissions, 1 live leases" in page
    assert client.post(reverse("admin:queues_workpool_delete", args=[pool.pk]), {"post": "yes"}).status_code == 403


def test_a_refusal_is_a_conflict_with_its_code(make_pool, listeners):
    pool = make_pool(1, k=1)
    item = WorkItem.objects.get(pool=pool)
    with pytest.raises(services.NoLease) as refused:
        submit(item, listeners[0])
    assert isinstance(refused.value, Conflict)  # so the API answers 409 (tests/core/test_refusals.py)
    assert (refused.value.status, refused.value.code) == (409, "no_lease")
    assert "never given item" in refused.value.message


def test_the_housekeeping_task_relabels_stale_leases(make_pool, listeners):
    from workers.queues import expire_stale_leases_task

    pool = make_pool(2, k=2, lease_seconds=1)
    services.claim_next(pool, listeners[0], now=later(-10))
    services.claim_next(pool, listeners[1])
    assert expire_stale_leases_task() == 1
