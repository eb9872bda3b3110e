"""Many listeners racing on PostgreSQL: every clip ends with exactly five distinct listeners, none lost."""

import threading
import time
from collections import Counter

import pytest
from django.db import transaction

from apps.core.errors import Conflict
from apps.listening import services
from apps.listening.models import Clip, Rating
from apps.queues import services as queues
from apps.queues.models import Assignment, WorkItem
from tests.race import run_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_race_of_threads_gives_every_clip_exactly_five_distinct_listeners(make_test, make_user):
    test = make_test(12, gold=1)
    users = [make_user(f"racer{i}", "listener") for i in range(14)]
    created_by_thread = Counter()

    def listen(user):
        while (assignment := services.next_assignment(test=test, acting_user=user)) is not None:
            clip = Clip.objects.get(work_item_id=assignment.item_id)
            services.report_playback(clip=clip, acting_user=user)
            score = 1 + (clip.pk + user.pk) % 5
            _, created = services.rate_clip(clip=clip, acting_user=user, score=score)
            # A resent submission (a double click, a retried request) must not count twice.
            _, again = services.rate_clip(clip=clip, acting_user=user, score=score)
            assert created and not again
            created_by_thread[user.pk] += 1

    errors = run_threads([lambda u=u: listen(u) for u in users])
    assert not errors, errors

    for clip in test.clips.regular():
        listeners = list(Rating.objects.filter(clip=clip).values_list("listener_id", flat=True))
        assert len(listeners) == 5 and len(set(listeners)) == 5, clip.clip_id
        clip.work_item.refresh_from_db()
        assert clip.work_item.submitted_count == 5
    gold = test.clips.gold().get()
    assert Rating.objects.filter(clip=gold).count() == len(users)  # every listener once, no cap
    # No rating lost: every rating a thread was told it stored is in the table, and nothing else is.
    assert sum(created_by_thread.values()) == Rating.objects.filter(clip__test=test).count() == 12 * 5 + len(users)
    assert not Assignment.objects.filter(pool=test.pool, status=Assignment.Status.LEASED).exists()


def test_two_copies_of_one_submission_racing_store_one_rating(make_test, listener):
    test = make_test(1)
    assignment = services.next_assignment(test=test, acting_user=listener)
    clip = Clip.objects.get(work_item_id=assignment.item_id)
    services.report_playback(clip=clip, acting_user=listener)
    results = []

    def submit():
        results.append(services.rate_clip(clip=clip, acting_user=listener, score=4)[1])

    errors = run_threads([submit] * 6, timeout=60)
    assert not errors
    assert sorted(results) == [False] * 5 + [True]
    assert Rating.objects.count() == 1
    clip.work_item.refresh_from_db()
    assert clip.work_item.submitted_count == 1


def test_a_rating_waits_for_the_items_lock_and_then_sees_the_item_as_it_is(make_test, listener):
    """The one-statement rating takes the item's row lock before anything else: closed by an admin while the
    rating waits, the item takes no rating (without the lock the rating would slip in during the wait)."""
    test = make_test(1)
    assignment = services.next_assignment(test=test, acting_user=listener)
    clip = Clip.objects.get(work_item_id=assignment.item_id)
    services.report_playback(clip=clip, acting_user=listener)
    holding, refused = threading.Event(), []

    def close_while_holding_the_lock():
        with transaction.atomic():
            item = WorkItem.objects.select_for_update().get(pk=clip.work_item_id)
            holding.set()
            time.sleep(0.5)  # the rating has started by now and waits for this lock
            queues.close_item(item)

    def rate():
        holding.wait(10)
        try:
            services.rate_clip(clip=clip, acting_user=listener, score=4)
        except Conflict as conflict:
            refused.append(conflict.code)

    assert not run_threads([close_while_holding_the_lock, rate], timeout=60)
    assert refused == ["item_closed"]
    assert not Rating.objects.exists()
    assert WorkItem.objects.get(pk=clip.work_item_id).submitted_count == 0
