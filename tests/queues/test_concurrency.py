"""The engine's guarantees under real concurrency: threads racing against PostgreSQL, each on its own
connection. A watcher thread checks the invariants while the race runs, each check one SQL statement (one
consistent snapshot): no item with more submitted + live leases than its capacity, no item over K
submissions, and the denormalised submitted_count always equal to the submitted rows."""

import random
import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.queues import selectors, services
from apps.queues.models import Assignment, AssignmentStatus, WorkItem
from tests.queues.conftest import submit, worker_counts, worker_order
from tests.race import run_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


class Watcher:
    """Checks the invariants over and over while a race runs, in its own thread and connection."""

    def __init__(self, pool, *, now=None):
        self.pool, self.now = pool, now
        self.checks = 0
        self.violations: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.check()  # once more at the end, from the test's own connection

    def _run(self):
        try:
            while not self._stop.is_set():
                self.check()
        finally:
            connection.close()

    def check(self):
        k = self.pool.required_per_item
        now = self.now or timezone.now()
        with connection.cursor() as cursor:
            cursor.execute(
                """
                SELECT i.id, i.submitted_count, COALESCE(NULLIF(i.capacity, 0), %s) AS cap,
                       (SELECT COUNT(*) FROM queues_assignment a WHERE a.item_id = i.id AND a.status = 'submitted'),
                       (SELECT COUNT(*) FROM queues_assignment a
                        WHERE a.item_id = i.id AND a.status = 'leased' AND a.expires_at > %s)
                FROM queues_workitem i WHERE i.pool_id = %s AND (i.capacity IS NULL OR i.capacity <> 0)
                """,
                [k, now, self.pool.pk],
            )
            rows = cursor.fetchall()
        self.checks += 1
        for item_id, counter, cap, submitted, live in rows:
            if submitted + live > cap:
                self.violations.append(f"item {item_id}: {submitted} submitted + {live} live > {cap}")
            if counter != submitted:
                self.violations.append(f"item {item_id}: submitted_count {counter} but {submitted} rows")


def assert_exactly_k_distinct_workers(pool):
    k = pool.required_per_item
    for item in WorkItem.objects.filter(pool=pool):
        workers = list(
            Assignment.objects.filter(item=item, status=AssignmentStatus.SUBMITTED).values_list("worker_id", flat=True)
        )
        assert len(workers) == len(set(workers)) == k == item.submitted_count, (item.pk, workers)
        assert item.complete


def test_many_workers_racing_fill_every_item_with_exactly_k_distinct_workers(make_pool, make_user):
    pool = make_pool(12, k=5)
    workers = [make_user(f"racer{i:02d}", "listener") for i in range(30)]
    submitted_by_threads = []
    lock = threading.Lock()
    deadline = time.monotonic() + 90

    def work(worker):
        rng = random.Random(worker.pk)

        def loop():
            while time.monotonic() < deadline:
                assignment = services.claim_next(pool, worker)
                if assignment is None:
                    if not WorkItem.objects.filter(pool=pool, complete=False).exists():
                        return
                    time.sleep(0.02)  # someone may still release a slot
                    continue
                if rng.random() < 0.15:
                    services.release(assignment)  # skips now and then
                    continue
                done = submit(assignment.item, worker)
                assert done.status == AssignmentStatus.SUBMITTED
                with lock:
                    submitted_by_threads.append((assignment.item_id, worker.pk))

        return loop

    with Watcher(pool) as watcher:
        errors = run_threads([work(w) for w in workers])
    assert not errors, errors
    assert watcher.checks > 5 and not watcher.violations, watcher.violations[:5]
    assert_exactly_k_distinct_workers(pool)
    # No submission lost, none counted twice: what the threads saw succeed is exactly what is stored.
    stored = set(
        Assignment.objects.filter(pool=pool, status=AssignmentStatus.SUBMITTED).values_list("item_id", "worker_id")
    )
    assert sorted(submitted_by_threads) == sorted(stored)
    assert len(stored) == 12 * 5
    assert selectors.pool_progress(pool)["by_submitted"] == {0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 12}


def test_late_submissions_racing_new_claims_never_overfill_an_item(make_pool, make_user):
    pool = make_pool(6, k=3, lease_seconds=60)
    start = timezone.now()
    first = [make_user(f"early{i:02d}", "listener") for i in range(18)]
    second = [make_user(f"fresh{i:02d}", "listener") for i in range(18)]
    leases = {w.pk: services.claim_next(pool, w, now=start) for w in first}
    assert all(leases.values())  # 6 items x 3 slots = 18 leases
    later = start + timedelta(seconds=61)  # every lease has run out
    outcomes = {"late accepted": 0, "late refused": 0, "claimed": 0}
    lock = threading.Lock()

    def late(worker):
        def go():
            try:
                submit(leases[worker.pk].item, worker, now=later)
                key = "late accepted"
            except services.SlotTaken:
                key = "late refused"
            with lock:
                outcomes[key] += 1

        return go

    def claim(worker):
        def go():
            if services.claim_next(pool, worker, now=later) is not None:
                with lock:
                    outcomes["claimed"] += 1

        return go

    targets = [late(w) for w in first] + [claim(w) for w in second]
    random.shuffle(targets)
    with Watcher(pool, now=later) as watcher:
        errors = run_threads(targets)
    assert not errors, errors
    assert not watcher.violations, watcher.violations[:5]
    assert outcomes["late accepted"] + outcomes["late refused"] == 18
    # Every slot is used exactly once, by a late answer or by a new lease; no slot twice.
    assert outcomes["late accepted"] + outcomes["claimed"] == 18
    for item in WorkItem.objects.filter(pool=pool):
        submitted = item.assignments.filter(status=AssignmentStatus.SUBMITTED).count()
        live = item.assignments.filter(status=AssignmentStatus.LEASED, expires_at__gt=later).count()
        assert submitted + live == 3


def test_the_same_submission_raced_from_many_threads_is_counted_once(make_pool, listener):
    pool = make_pool(1, k=3)
    assignment = services.claim_next(pool, listener)
    results = []

    def go():
        results.append(submit(assignment.item, listener).status)

    errors = run_threads([go] * 12)
    assert not errors, errors
    assert results == [AssignmentStatus.SUBMITTED] * 12
    assert WorkItem.objects.get(pk=assignment.item_id).submitted_count == 1


def test_one_worker_claiming_from_many_tabs_at_once_gets_one_lease(make_pool, listener):
    pool = make_pool(10, k=3)
    got = []

    def go():
        got.append(services.claim_next(pool, listener).pk)

    errors = run_threads([go] * 10)
    assert not errors, errors
    assert len(set(got)) == 1
    assert Assignment.objects.filter(worker=listener).count() == 1


def _worker_starting_with(pool, item_id, make_user, prefix):
    for i in range(200):
        worker = make_user(f"{prefix}{i}", "listener")
        if worker_order(pool, worker)[0] == item_id:
            return worker
    raise AssertionError("no worker found whose order starts with the item")  # 2 items: about 1 in 2


def test_a_claim_skips_an_item_someone_else_holds_locked_instead_of_waiting(make_pool, listener, make_user):
    pool = make_pool(2, k=5)
    held = services.claim_next(pool, listener)
    other_item = WorkItem.objects.filter(pool=pool).exclude(pk=held.item_id).get()
    rival = _worker_starting_with(pool, held.item_id, make_user, "rival")
    locked, finish = threading.Event(), threading.Event()
    got = {}

    def hold_the_lock():
        with transaction.atomic():
            services.lease_for_submission(held.item, listener)  # row lock held until commit
            locked.set()
            finish.wait(10)
            services.mark_submitted(held)

    def claim():
        locked.wait(10)
        started = time.monotonic()
        got["assignment"] = services.claim_next(pool, rival)
        got["seconds"] = time.monotonic() - started
        finish.set()

    errors = run_threads([hold_the_lock, claim])
    assert not errors, errors
    assert got["assignment"].item_id == other_item.pk  # its first choice was locked: took the next one
    assert got["seconds"] < 5


def test_a_claim_waits_for_a_locked_last_slot_rather_than_saying_nothing_is_left(make_pool, listeners):
    pool = make_pool(1, k=2)
    alice, bob = listeners[0], listeners[1]
    held = services.claim_next(pool, alice)
    locked, claim_started = threading.Event(), threading.Event()
    got = {}

    def hold_the_lock():
        with transaction.atomic():
            services.lease_for_submission(held.item, alice)
            locked.set()
            claim_started.wait(10)
            time.sleep(0.5)  # bob's claim is now waiting on the row lock
            got["bob still waiting"] = "assignment" not in got
            services.mark_submitted(held)

    def claim():
        locked.wait(10)
        claim_started.set()
        got["assignment"] = services.claim_next(pool, bob)

    errors = run_threads([hold_the_lock, claim])
    assert not errors, errors
    assert got["bob still waiting"]
    assert got["assignment"] is not None and got["assignment"].item_id == held.item_id


def test_excluding_a_worker_in_the_middle_of_a_race_keeps_every_count_right(make_pool, make_user, admin):
    pool = make_pool(10, k=3)
    workers = [make_user(f"busy{i:02d}", "listener") for i in range(8)]
    target = workers[0]
    refused = []

    def work(worker):
        def loop():
            while (assignment := services.claim_next(pool, worker)) is not None:
                try:
                    submit(assignment.item, worker)
                except services.WorkerExcluded:
                    refused.append(worker.pk)
                    return

        return loop

    def exclude():
        time.sleep(0.05)
        services.exclude_worker(pool, target, by=admin)

    with Watcher(pool) as watcher:
        errors = run_threads([work(w) for w in workers] + [exclude])
    assert not errors, errors
    assert not watcher.violations, watcher.violations[:5]
    assert set(refused) <= {target.pk}
    assert not Assignment.objects.filter(worker=target, status__in=["submitted", "leased"]).exists()
    # The others finish the pool: the target's invalidated slots were handed out again.
    for worker in workers[1:]:
        while (assignment := services.claim_next(pool, worker)) is not None:
            submit(assignment.item, worker)
    assert_exactly_k_distinct_workers(pool)
    assert target.pk not in worker_counts(pool)


@pytest.mark.parametrize("bob_index", [1, 2, 3, 4])
def test_a_worker_whose_first_item_is_full_waits_for_a_locked_gold_item(make_pool, listeners, bob_index):
    """Regression: the "is anything left?" check looked only at the first open item in the worker's order,
    so a full item there hid a gold item that was merely row-locked by someone else's submission."""
    pool = make_pool(1, k=1)
    gold = WorkItem.objects.get(pk=services.add_items(pool, 1, capacity=WorkItem.UNLIMITED)[0])
    alice, carol, bob = listeners[0], listeners[5], listeners[bob_index]
    while (held := services.claim_next(pool, alice)).item_id == gold.pk:
        submit(held.item, alice)  # alice ends up holding the one regular slot: that item is full
    services.claim_next(pool, carol)  # carol leases the gold item
    locked, got = threading.Event(), {}

    def carol_submits_slowly():
        with transaction.atomic():
            services.lease_for_submission(gold, carol)
            locked.set()
            time.sleep(0.5)
            services.mark_submitted(Assignment.objects.get(item=gold, worker=carol))

    def bob_claims():
        locked.wait(10)
        got["assignment"] = services.claim_next(pool, bob)

    errors = run_threads([carol_submits_slowly, bob_claims])
    assert not errors, errors
    assert got["assignment"] is not None and got["assignment"].item_id == gold.pk
