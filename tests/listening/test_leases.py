"""Leases: an expired lease hands the slot to someone else; a late rating counts only if the slot is free."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.errors import Conflict
from apps.listening import services
from apps.listening.models import Clip, Rating

from .conftest import rate_via_services

pytestmark = pytest.mark.django_db


def _fill_four(test, listeners, now):
    for user in listeners[:4]:
        rate_via_services(test, user, now=now)


def test_an_expired_lease_hands_the_slot_to_someone_else(make_test, listeners):
    test = make_test(1, lease_seconds=60)
    now = timezone.now()
    _fill_four(test, listeners, now)
    slow, quick = listeners[4], listeners[5]
    held = services.next_assignment(test=test, acting_user=slow, now=now)
    clip = Clip.objects.get(work_item_id=held.item_id)
    services.report_playback(clip=clip, acting_user=slow, now=now)
    # While the lease is live, the fifth slot is taken.
    assert services.next_assignment(test=test, acting_user=quick, now=now + timedelta(seconds=30)) is None
    later = now + timedelta(seconds=61)
    given = services.next_assignment(test=test, acting_user=quick, now=later)
    assert given is not None and given.item_id == held.item_id
    services.report_playback(clip=clip, acting_user=quick, now=later)
    services.rate_clip(clip=clip, acting_user=quick, score=4, now=later)
    # The slow listener's late rating finds the slot taken.
    with pytest.raises(Conflict) as refused:
        services.rate_clip(clip=clip, acting_user=slow, score=2, now=later + timedelta(seconds=1))
    assert refused.value.code == "slot_taken"
    assert Rating.objects.filter(clip=clip).count() == 5


def test_a_late_rating_is_accepted_while_the_slot_is_still_free(make_test, listeners):
    test = make_test(1, lease_seconds=60)
    now = timezone.now()
    held = services.next_assignment(test=test, acting_user=listeners[0], now=now)
    clip = Clip.objects.get(work_item_id=held.item_id)
    services.report_playback(clip=clip, acting_user=listeners[0], now=now)
    rating, created = services.rate_clip(clip=clip, acting_user=listeners[0], score=3, now=now + timedelta(minutes=5))
    assert created and rating.score == 3


def test_playback_cannot_be_reported_on_an_expired_lease(make_test, listener):
    test = make_test(1, lease_seconds=60)
    now = timezone.now()
    held = services.next_assignment(test=test, acting_user=listener, now=now)
    clip = Clip.objects.get(work_item_id=held.item_id)
    with pytest.raises(Conflict) as refused:
        services.report_playback(clip=clip, acting_user=listener, now=now + timedelta(seconds=90))
    assert refused.value.code == "no_lease"
