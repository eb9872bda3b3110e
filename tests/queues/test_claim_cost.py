"""claim_next is the hot path of the listening and verification load tests: a fixed number of queries
whatever the pool size or the worker's history, and no plan that degrades on a fresh pool."""

import statistics
import time

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.queues import services
from apps.queues.models import WorkItem
from tests.queues.conftest import submit

pytestmark = pytest.mark.django_db


def test_claiming_and_submitting_take_a_fixed_number_of_queries(make_pool, listeners):
    small, large = make_pool(5, k=3, name="small"), make_pool(400, k=3, name="large")
    alice = listeners[0]
    for _ in range(60):  # a long history in the large pool
        submit(services.claim_next(large, alice).item, alice)
    counts = {}
    for pool in (small, large):
        with CaptureQueriesContext(connection) as claiming:
            assignment = services.claim_next(pool, alice)
        with CaptureQueriesContext(connection) as submitting, transaction.atomic():
            services.mark_submitted(services.lease_for_submission(WorkItem(pk=assignment.item_id), alice))
        with CaptureQueriesContext(connection) as again:
            services.claim_next(pool, alice)
        counts[pool.name] = (len(claiming), len(submitting), len(again))
    assert counts["small"] == counts["large"]
    claim, submit_queries, _ = counts["large"]
    assert claim <= 7 and submit_queries <= 7, counts


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_fresh_pool_without_planner_statistics_still_claims_in_milliseconds(make_pool, listeners):
    # A brand-new pool has no statistics: an anti-join plan then became a nested loop, linear in the
    # worker's history for every item of the pool.
    pool = make_pool(3000, k=5)
    alice = listeners[0]
    for _ in range(400):
        submit(services.claim_next(pool, alice).item, alice)
    timings = []
    for _ in range(7):
        started = time.perf_counter()
        assignment = services.claim_next(pool, alice)
        timings.append(time.perf_counter() - started)
        services.release(assignment)
    # About 4 ms here; the anti-join plan took 60-100 ms with this history, growing with it.
    assert statistics.median(timings) < 0.03, timings
