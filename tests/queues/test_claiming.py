"""claim_next, leases, late submissions, release, close, exclusion and gold items, one worker at a time.
These run on SQLite (the default) as well as on PostgreSQL."""

import pytest
from django.db import transaction
from django.db.utils import IntegrityError

from apps.queues import selectors, services
from apps.queues.models import Assignment, AssignmentStatus, WorkItem
from tests.queues.conftest import later, submit, worker_counts, worker_order

pytestmark = pytest.mark.django_db


def drain(pool, worker, *, now=None) -> list[int]:
    """Claim and submit until nothing is left for the worker; the item ids in the order they came."""
    seen = []
    while (assignment := services.claim_next(pool, worker, now=now)) is not None:
        seen.append(assignment.item_id)
        submit(assignment.item, worker, now=now)
    return seen


def test_it_hands_a_worker_the_same_item_until_they_submit(make_pool, listener):
    pool = make_pool(5)
    first = services.claim_next(pool, listener)
    assert first.status == AssignmentStatus.LEASED
    assert services.claim_next(pool, listener).pk == first.pk
    assert selectors.live_assignment(pool, listener).pk == first.pk
    submit(first.item, listener)
    second = services.claim_next(pool, listener)
    assert second.item_id != first.item_id


def test_a_worker_gets_every_item_once_in_their_own_stable_order(make_pool, listeners):
    pool = make_pool(30, k=7)
    alice, bob = listeners[0], listeners[1]
    alice_order = drain(pool, alice)
    assert alice_order == worker_order(pool, alice)
    assert sorted(alice_order) == sorted(WorkItem.objects.filter(pool=pool).values_list("id", flat=True))
    # Asking again for the order gives the same permutation; another worker's differs.
    assert worker_order(pool, alice) == alice_order
    bob_order = drain(pool, bob)
    assert sorted(bob_order) == sorted(alice_order)
    assert bob_order != alice_order
    # Not just a rotation or a reversal: the successor of an item differs for most items.
    alice_next = dict(zip(alice_order, alice_order[1:], strict=False))
    bob_next = dict(zip(bob_order, bob_order[1:], strict=False))
    same_successor = sum(alice_next[i] == bob_next.get(i) for i in alice_next)
    assert same_successor < 10  # by chance about 1 of 29


def test_orders_of_many_workers_are_spread_out(make_pool, make_user):
    pool = make_pool(20, k=20)
    workers = [make_user(f"w{i}", "listener") for i in range(12)]
    firsts = [worker_order(pool, w)[0] for w in workers]
    # 12 workers over 20 items: if orders were shared, all would start on the same item.
    assert len(set(firsts)) >= 5


def test_it_never_has_more_than_k_workers_on_an_item(make_pool, listeners):
    pool = make_pool(1, k=3)
    holders = [services.claim_next(pool, w) for w in listeners[:5]]
    assert [h is not None for h in holders] == [True, True, True, False, False]
    submit(holders[0].item, listeners[0])
    # One submitted and two live leases still fill the three slots.
    assert services.claim_next(pool, listeners[3]) is None
    item = WorkItem.objects.get(pool=pool)
    assert item.submitted_count == 1 and not item.complete


def test_an_item_with_k_submissions_is_complete_and_handed_out_no_more(make_pool, listeners):
    pool = make_pool(1, k=2)
    for worker in listeners[:2]:
        submit(services.claim_next(pool, worker).item, worker)
    item = WorkItem.objects.get(pool=pool)
    assert (item.submitted_count, item.complete) == (2, True)
    assert services.claim_next(pool, listeners[2]) is None
    assert selectors.pool_progress(pool)["by_submitted"] == {0: 0, 1: 0, 2: 1}


def test_an_explicit_capacity_overrides_the_pool_k(make_pool, listeners):
    pool = make_pool(0, k=5)
    services.add_items(pool, 1, capacity=2)
    got = [services.claim_next(pool, w) for w in listeners[:3]]
    assert [g is not None for g in got] == [True, True, False]


def test_the_same_worker_is_never_assigned_the_same_item_twice(make_pool, listener):
    pool = make_pool(1)
    assignment = services.claim_next(pool, listener)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            pool=pool, item_id=assignment.item_id, worker=listener,
            leased_at=assignment.leased_at, expires_at=assignment.expires_at,
        )


def test_submitting_twice_counts_once(make_pool, listener):
    pool = make_pool(2, k=3)
    assignment = services.claim_next(pool, listener)
    submit(assignment.item, listener)
    again = submit(assignment.item, listener)
    assert again.status == AssignmentStatus.SUBMITTED
    with transaction.atomic():
        services.mark_submitted(assignment)  # a third time, straight on the old object
    assert WorkItem.objects.get(pk=assignment.item_id).submitted_count == 1
    assert worker_counts(pool) == {listener.pk: 1}


def test_an_expired_lease_frees_the_slot_for_someone_else(make_pool, listeners):
    pool = make_pool(1, k=1, lease_seconds=60)
    alice, bob = listeners[0], listeners[1]
    start = later(0)
    held = services.claim_next(pool, alice, now=start)
    assert services.claim_next(pool, bob, now=later(59, start=start)) is None
    bobs = services.claim_next(pool, bob, now=later(61, start=start))
    assert bobs is not None and bobs.item_id == held.item_id
    # Alice's old lease no longer counts as hers either: she is offered nothing (she had this item).
    assert services.claim_next(pool, alice, now=later(62, start=start)) is None
    assert Assignment.objects.get(pk=held.pk).status == AssignmentStatus.EXPIRED


def test_a_late_submission_is_accepted_when_the_slot_is_still_free(make_pool, listeners):
    pool = make_pool(1, k=1, lease_seconds=60)
    alice = listeners[0]
    start = later(0)
    held = services.claim_next(pool, alice, now=start)
    done = submit(held.item, alice, now=later(3600, start=start))
    assert done.status == AssignmentStatus.SUBMITTED
    assert WorkItem.objects.get(pk=held.item_id).submitted_count == 1


def test_a_late_submission_is_refused_when_the_slot_was_given_away(make_pool, listeners):
    pool = make_pool(1, k=1, lease_seconds=60)
    alice, bob = listeners[0], listeners[1]
    start = later(0)
    held = services.claim_next(pool, alice, now=start)
    services.claim_next(pool, bob, now=later(61, start=start))
    with pytest.raises(services.SlotTaken, match="given to someone else"):
        submit(held.item, alice, now=later(62, start=start))
    # Once Bob's lease runs out too, Alice's late answer fits again.
    assert submit(held.item, alice, now=later(61 + 61, start=start)).status == AssignmentStatus.SUBMITTED
    with pytest.raises(services.SlotTaken):
        submit(held.item, bob, now=later(61 + 62, start=start))


def test_a_submission_without_a_lease_is_refused(make_pool, listeners):
    pool = make_pool(1)
    item = WorkItem.objects.get(pool=pool)
    with pytest.raises(services.NoLease, match="never given item"):
        submit(item, listeners[0])


@pytest.mark.django_db(transaction=True)
def test_lease_for_submission_must_run_inside_a_transaction(make_pool, listener):
    pool = make_pool(1)
    assignment = services.claim_next(pool, listener)
    with pytest.raises(transaction.TransactionManagementError):
        services.lease_for_submission(assignment.item, listener)
    with pytest.raises(transaction.TransactionManagementError):
        services.mark_submitted(assignment)


def test_release_frees_the_slot_at_once_and_the_skipped_item_comes_last(make_pool, listeners):
    pool = make_pool(2, k=1)
    alice, bob = listeners[0], listeners[1]
    first = services.claim_next(pool, alice)
    services.release(first)
    assert first.status == AssignmentStatus.RELEASED
    second = services.claim_next(pool, alice)
    assert second.item_id != first.item_id
    assert services.claim_next(pool, bob).item_id == first.item_id
    services.release(second)
    # Nothing fresh is left for Alice and the pool's kind names nobody else: "later" has come.
    assert services.claim_next(pool, alice).item_id == second.item_id


def test_a_skipped_item_waits_for_others_who_could_take_it(make_pool, listeners):
    pool = make_pool(1, k=1)
    pool.kind = "test-eligible"
    pool.save(update_fields=["kind"])
    alice, bob = listeners[0], listeners[1]
    eligible = {alice.pk, bob.pk}
    services.register_eligible_workers("test-eligible")(lambda p: eligible)
    services.release(services.claim_next(pool, alice))
    assert services.claim_next(pool, alice) is None  # Bob never had it: it waits for him
    eligible.discard(bob.pk)
    assert services.claim_next(pool, alice) is not None  # no one else can take it now: back to Alice


def test_a_declined_item_never_comes_back(make_pool, listeners):
    pool = make_pool(1, k=1)
    alice = listeners[0]
    with pytest.raises(ValueError):
        services.decline(services.claim_next(pool, alice), reason=" ")
    declined = services.decline(services.claim_next(pool, alice), reason="I know the speaker")
    assert declined.status == AssignmentStatus.DECLINED and declined.decline_reason == "I know the speaker"
    assert services.claim_next(pool, alice) is None


def test_a_released_item_can_still_be_submitted_while_its_slot_is_free(make_pool, listeners):
    pool = make_pool(1, k=1)
    alice, bob = listeners[0], listeners[1]
    held = services.claim_next(pool, alice)
    services.release(held)
    assert submit(held.item, alice).status == AssignmentStatus.SUBMITTED
    assert services.claim_next(pool, bob) is None


def test_a_closed_item_is_handed_out_no_more_and_takes_no_submissions(make_pool, listeners):
    pool = make_pool(1, k=3)
    alice, bob = listeners[0], listeners[1]
    held = services.claim_next(pool, alice)
    services.close_item(held.item)
    assert Assignment.objects.get(pk=held.pk).status == AssignmentStatus.RELEASED
    assert services.claim_next(pool, bob) is None
    with pytest.raises(services.ItemClosed, match="closed"):
        submit(held.item, alice)
    assert selectors.pool_progress(pool)["closed"] == 1


def test_a_closed_item_keeps_submissions_made_before(make_pool, listeners):
    pool = make_pool(1, k=3)
    alice = listeners[0]
    held = services.claim_next(pool, alice)
    submit(held.item, alice)
    services.close_item(held.item)
    assert submit(held.item, alice).status == AssignmentStatus.SUBMITTED
    assert WorkItem.objects.get(pk=held.item_id).submitted_count == 1


def test_an_excluded_worker_gets_nothing_and_cannot_submit(make_pool, admin, listeners):
    pool = make_pool(3, k=3)
    alice = listeners[0]
    held = services.claim_next(pool, alice)
    exclusion = services.exclude_worker(pool, alice, by=admin, reason="clicked through")
    assert (exclusion.excluded_by, exclusion.reason) == (admin, "clicked through")
    assert services.claim_next(pool, alice) is None
    assert Assignment.objects.get(pk=held.pk).status == AssignmentStatus.RELEASED
    with pytest.raises(services.WorkerExcluded, match="excluded"):
        submit(held.item, alice)
    other = WorkItem.objects.filter(pool=pool).exclude(pk=held.item_id).first()
    with pytest.raises(services.WorkerExcluded):
        submit(other, alice)
    assert list(pool.excluded_workers.all()) == [alice]
    assert selectors.remaining_for_worker(pool, alice) == 0


def test_excluding_a_worker_invalidates_their_submissions_and_reopens_the_slots(make_pool, admin, listeners):
    pool = make_pool(2, k=2)
    alice, bob, carol = listeners[:3]
    drain(pool, alice)
    drain(pool, bob)
    assert services.claim_next(pool, carol) is None
    assert selectors.pool_progress(pool)["complete"] == 2

    services.exclude_worker(pool, alice, by=admin)
    services.exclude_worker(pool, alice, by=admin)  # idempotent: nothing decremented twice
    assert set(Assignment.objects.filter(worker=alice).values_list("status", flat=True)) == {
        AssignmentStatus.INVALIDATED
    }
    assert list(WorkItem.objects.filter(pool=pool).values_list("submitted_count", "complete")) == [(1, False)] * 2
    assert len(drain(pool, carol)) == 2
    assert worker_counts(pool) == {bob.pk: 2, carol.pk: 2}
    progress = selectors.pool_progress(pool)
    assert (progress["complete"], progress["submissions"], progress["excluded_workers"]) == (2, 4, 1)


def test_gold_items_are_served_once_to_every_worker(make_pool, listeners):
    pool = make_pool(0, k=2)
    gold = services.add_items(pool, 2, capacity=WorkItem.UNLIMITED)
    services.add_items(pool, 1)
    for worker in listeners:
        got = drain(pool, worker)
        assert set(gold) <= set(got)
    assert [(i.submitted_count, i.complete) for i in WorkItem.objects.filter(pk__in=gold)] == [(len(listeners), False)] * 2
    progress = selectors.pool_progress(pool)
    assert progress["gold"] == 2 and progress["by_submitted"] == {0: 0, 1: 0, 2: 1}


def test_stale_leases_are_relabelled_by_housekeeping(make_pool, listeners):
    pool = make_pool(3, k=3, lease_seconds=60)
    start = later(0)
    for worker in listeners[:3]:
        services.claim_next(pool, worker, now=start)
    assert selectors.pool_progress(pool, now=start)["live_leases"] == 3
    assert selectors.pool_progress(pool, now=later(61, start=start))["live_leases"] == 0
    assert services.expire_stale_leases(now=later(30, start=start)) == 0
    assert services.expire_stale_leases(now=later(61, start=start)) == 3
    assert Assignment.objects.filter(status=AssignmentStatus.EXPIRED).count() == 3


def test_pool_progress_counts_items_by_submissions(make_pool, listeners):
    pool = make_pool(4, k=2)
    for worker in listeners[:3]:
        submit(services.claim_next(pool, worker).item, worker)
    services.claim_next(pool, listeners[3])
    progress = selectors.pool_progress(pool)
    assert progress["items"] == 4
    assert sum(progress["by_submitted"].values()) == 4
    assert sum(n * count for n, count in progress["by_submitted"].items()) == 3
    assert progress["submissions"] == 3 and progress["live_leases"] == 1
    assert worker_counts(pool) == {w.pk: 1 for w in listeners[:3]}
    remaining = selectors.remaining_for_worker(pool, listeners[0])
    assert 0 < remaining <= 3
    assert len(drain(pool, listeners[0])) == remaining
    assert selectors.remaining_for_worker(pool, listeners[0]) == 0


def test_create_pool_refuses_bad_numbers(db):
    with pytest.raises(ValueError, match="required_per_item"):
        services.create_pool(name="x", kind="t", required_per_item=0)
    with pytest.raises(ValueError, match="lease_seconds"):
        services.create_pool(name="x", kind="t", required_per_item=3, lease_seconds=0)
    pool = services.create_pool(name="x", kind="t", required_per_item=3)
    assert pool.lease_seconds == 900
    with pytest.raises(ValueError, match="capacity"):
        services.add_items(pool, 1, capacity=-1)


def test_the_lease_length_comes_from_the_setting(settings, db):
    settings.QUEUE_LEASE_SECONDS = 120
    pool = services.create_pool(name="x", kind="t", required_per_item=3)
    assert pool.lease_seconds == 120
