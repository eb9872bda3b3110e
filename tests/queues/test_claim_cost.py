"""claim_next is the hot path of the listening and verification load tests: a fixed number of queries
whatever the pool size or the worker's history, and a plan whose work grows with the worker's history and
the buckets of their order it walks (apps.queues.ordering), never with the pool, nor with the pool times
the worker's history, nor with the other pools in the same tables.

These are counts, not timings (a timed assertion flaked on a busy machine): the number of queries, and on
PostgreSQL the rows each plan node actually touched (EXPLAIN ANALYZE counts rows, which do not depend on
the load). The latency itself is measured by benchmarks/claim_fresh_pool.py (and, under load, benchmarks/queues_claim.py)."""

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.queues import services
from apps.queues.models import Assignment, AssignmentStatus, WorkItem
from apps.queues.ordering import BUCKETS
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


def _candidate_plan(pool, worker) -> dict:
    """EXPLAIN ANALYZE of the candidate query a real claim ran (captured with its parameters), in a
    transaction that is rolled back so the rows it locks are let go. The claim's statements are planned
    for their values (plan_cache_mode), so the query with its values inlined, as the ordinary cursor sends
    it, is planned as the prepared one is."""
    with override_settings(PREPARED_STATEMENTS=False), CaptureQueriesContext(connection) as claiming:
        assignment = services.claim_next(pool, worker)
    services.release(assignment)
    sql = next(q["sql"] for q in claiming.captured_queries if "WITH ranked AS" in q["sql"])
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
        transaction.set_rollback(True)
    return (plan[0] if isinstance(plan, list) else plan)["Plan"]


def _nodes(node: dict):
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


def _rows_touched(node: dict) -> int:
    """Rows a node produced or read and threw away, over all its loops."""
    per_loop = node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)
    return per_loop * node.get("Actual Loops", 1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("statistics", ["fresh", "stale", "analyzed"])
def test_a_claim_reads_the_pool_once_whatever_the_history_and_the_other_pools(make_pool, listeners, statistics):
    # A brand-new pool has no statistics: an anti-join plan then became a nested loop that read the
    # worker's whole history once per item of the pool (hundreds of ms). With statistics, another query
    # shape let in a sequential scan of the whole item table, every pool's items. Statistics taken while
    # the tables were nearly empty made the planner read each bucket of the walk through an index on the
    # pool alone, so the whole pool once per bucket.
    items, history = 3000, 400
    if statistics == "stale":
        make_pool(3, k=5, name="the first pool")
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {WorkItem._meta.db_table}, {Assignment._meta.db_table}")
    others = make_pool(12000, k=5, name="other pools")
    bob = listeners[1]
    now = timezone.now()
    Assignment.objects.bulk_create(
        Assignment(pool=others, item=item, worker=bob, status=AssignmentStatus.SUBMITTED, leased_at=now, expires_at=now,
                   submitted_at=now)
        for item in others.items.all()[:3000]
    )
    pool = make_pool(items, k=5)
    alice = listeners[0]
    for _ in range(history):
        submit(services.claim_next(pool, alice).item, alice)
    if statistics == "analyzed":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {WorkItem._meta.db_table}, {Assignment._meta.db_table}")

    plan = _candidate_plan(pool, alice)
    nodes = list(_nodes(plan))
    tables = {WorkItem._meta.db_table, Assignment._meta.db_table}
    seq_scans = [n["Relation Name"] for n in nodes if n["Node Type"] == "Seq Scan" and n.get("Relation Name") in tables]
    assert not seq_scans, f"sequential scan of {seq_scans}: the claim would read every pool's rows"
    # The walk starts at the bucket of the worker's last item (one probe of their newest assignment), asks
    # whether each item of the bucket is theirs (a probe of the unique (item, worker) index each) and probes
    # the live leases of the window of candidates: no node on the assignment table runs once per item of the
    # pool, nor reads the worker's history.
    loops = [n["Actual Loops"] for n in nodes if n.get("Relation Name") == Assignment._meta.db_table]
    assert loops and max(loops) <= 3 * items // BUCKETS, loops
    # Work in the bucket walked, not in the pool nor in the history: a few hundred rows here, where ranking
    # every open item read about 10,000, the nested loop items x history = 1,200,000, and a scan of the
    # other pools would add 12,000 more.
    touched = sum(_rows_touched(n) for n in nodes)
    assert touched <= 12 * items // BUCKETS, touched
