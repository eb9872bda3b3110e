"""Fast checks behind the pages: a listening clip reaches its five ratings with exactly five listeners after a
lease lapsed; clips that cannot are listed with the reason; thin data shows "n too small" and CIs stay on
the 1-5 scale; reason codes show their labels."""

from datetime import timedelta

import pytest
from django.template import Context, Template
from django.utils import timezone

from apps.listening import services
from apps.listening.models import Rating
from apps.queues.models import Assignment
from apps.queues.selectors import unreachable_items

pytestmark = pytest.mark.django_db


def _rate_all(test, listener, *, now):
    while (assignment := services.next_assignment(test=test, acting_user=listener, now=now)) is not None:
        clip = test.clips.select_related("asset").get(work_item_id=assignment.item_id)
        now += timedelta(seconds=clip.asset.duration_seconds + 1)
        services.report_playback(clip=clip, acting_user=listener, now=now)
        services.rate_clip(clip=clip, acting_user=listener, score=3, now=now)
    return now


def test_a_clip_reaches_five_ratings_with_exactly_five_listeners_after_a_lapsed_lease(make_test, listeners):
    five = listeners[:5]
    test = make_test(2, publish=False)
    services.publish_test(test=test, acting_user=None, audience="named", listeners=five)
    now = timezone.now()
    walked_away = services.next_assignment(test=test, acting_user=five[0], now=now)
    now += timedelta(seconds=test.pool.lease_seconds + 1)  # their lease runs out
    for listener in five[1:]:
        now = _rate_all(test, listener, now=now)
    # The first listener comes back: the clip they let lapse is theirs again, since no one else can rate it.
    now = _rate_all(test, five[0], now=now)
    assert Rating.objects.filter(clip__work_item_id=walked_away.item_id).count() == 5
    assert Rating.objects.count() == 10


def test_clips_that_cannot_reach_five_ratings_are_listed_with_the_reason(make_test, listeners):
    test = make_test(1, publish=False)
    services.publish_test(test=test, acting_user=None, audience="named", listeners=listeners[:3])
    [stuck] = unreachable_items(test.pool)
    assert stuck.needed == 5 and stuck.available == 3
    assert "needs 5 more, but only 3" in stuck.why


def test_a_draft_has_nobody_to_rate_it_and_a_listener_cannot_claim_from_it(make_test, listener):
    from apps.core.errors import NotFound

    test = make_test(1, publish=False)
    with pytest.raises(NotFound):
        services.next_assignment(test=test, acting_user=listener)
    assert not Assignment.objects.exists()


def test_intervals_stay_on_the_scale_and_small_n_says_so():
    render = lambda low, high, n: Template("{% load sori_format %}{% mos_ci low high n %}").render(  # noqa: E731
        Context({"low": low, "high": high, "n": n}))
    assert "n too small" in render(2.0, 4.0, 2)
    assert render(2.5, 3.5, 10) == "2.50\u00a0–\u00a03.50"
    clipped = render(3.9, 5.8, 4)
    assert clipped.startswith("3.90\u00a0–\u00a05.00") and "clipped to 1–5" in clipped


def test_codes_show_labels_and_percentages_carry_units():
    text = Template("{% load sori_format %}{{ codes|labels }} · {{ rate|pct }} · {{ none|pct }}").render(
        Context({"codes": ["wrong_answer", "media_unclear", "some_new_code"], "rate": 81.264, "none": None}))
    assert text == "Wrong answer, Media unclear or broken, Some new code · 81.3 % · —"


def test_the_listening_dashboard_with_one_rating_shows_thin_states(make_test, listener, admin, client_for):
    test = make_test(2)
    now = timezone.now()
    assignment = services.next_assignment(test=test, acting_user=listener, now=now)
    clip = test.clips.select_related("asset").get(work_item_id=assignment.item_id)
    now += timedelta(seconds=clip.asset.duration_seconds + 1)
    services.report_playback(clip=clip, acting_user=listener, now=now)
    services.rate_clip(clip=clip, acting_user=listener, score=4, now=now)
    page = client_for(admin).get(f"/listening/manage/tests/{test.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "not enough ratings yet" in html and "n too small" in html


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "shown", "how_to_set_a_key"), [
    ("admin", True, True), ("expert", True, False), ("annotator", True, False), ("listener", False, False),
])
def test_the_demo_provider_banner_tells_only_those_who_see_agent_output_and_only_admins_about_keys(
        who, shown, how_to_set_a_key, request, client_for, settings):
    # Issue 20: the "set ANTHROPIC_API_KEY" banner showed to listeners and annotators.
    settings.SORI_DEMO_PROVIDER = True
    page = client_for(request.getfixturevalue(who)).get("/").content.decode()
    assert ('id="demo-provider"' in page) == shown
    assert ("Set ANTHROPIC_API_KEY" in page) == how_to_set_a_key
