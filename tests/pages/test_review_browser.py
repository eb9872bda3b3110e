"""The review page in a real browser: an item reaches its three reviews with exactly three annotators after
one lease expired and one skip; admins browse without taking a slot; keys work after clicking Play."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.queues.models import Assignment, AssignmentStatus
from apps.verification import services
from apps.verification.models import ItemStatus, Review
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _approve_all_left(project, annotator):
    while (item := services.next_item(project=project, acting_user=annotator)) is not None:
        services.submit_review(item=item, acting_user=annotator, decision="approve")


def test_an_item_reaches_three_reviews_after_an_expired_lease_and_a_skip(make_project, annotators, page, login, live_server):
    project = make_project(2)
    first, second, third = annotators
    # The first annotator's lease on an item runs out (they walked away).
    lapsed = services.next_item(project=project, acting_user=first)
    Assignment.objects.filter(item_id=lapsed.work_item_id, worker=first).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    # The second annotator skips their first item in the browser, then reviews everything they are shown.
    login(page, second)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/review/")
    skipped_title = page.locator("main").inner_text()
    page.click("#skip")
    assert "comes back to you if no one else can take it" in page.locator(".messages").inner_text()
    assert page.locator("main").inner_text() != skipped_title
    for _ in range(2):
        page.keyboard.press("a")
        page.wait_for_selector(".message--success")
    assert page.locator("#nothing-left").is_visible()
    assert Review.objects.filter(annotator=second).count() == 2  # the skipped item came back to them
    # The third reviews both; the first comes back and is given the lapsed item again.
    _approve_all_left(project, third)
    _approve_all_left(project, first)
    assert list(project.items.values_list("status", flat=True)) == [ItemStatus.ACCEPTED] * 2
    assert Assignment.objects.filter(pool=project.pool, status=AssignmentStatus.SUBMITTED).count() == 6


def test_an_admin_browses_items_read_only_and_reviews_only_when_they_choose_to(make_project, admin, page, login, live_server):
    project = make_project(2)
    login(page, admin)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/review/")
    assert "browsing read-only" in page.locator("#admin-browse").inner_text()
    page.click("text=item-1")
    page.wait_for_selector("h1")
    assert not Assignment.objects.filter(worker=admin).exists()
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/items/")
    page.click("#review-as-annotator")
    page.wait_for_selector("#review-form")
    assert "each item you are shown takes one of its three review slots" in page.locator(".messages").inner_text()
    assert Assignment.objects.filter(worker=admin, status=AssignmentStatus.LEASED).count() == 1


def test_the_stuck_item_list_names_items_that_cannot_reach_three_reviews(make_project, annotators, admin, page, login, live_server):
    project = make_project(1)
    item = services.next_item(project=project, acting_user=annotators[0])
    services.skip_item(item=item, acting_user=annotators[0], reason="I recorded this speaker myself")
    login(page, admin)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/")
    text = page.locator("#unreachable").inner_text()
    assert "item-1" in text and "needs 3 more" in text and "I recorded this speaker myself" in text


def test_review_keys_work_after_a_click_on_play(make_project, annotator, page, login, live_server):
    project = make_project(1)
    login(page, annotator)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/review/")
    player = page.locator("audio.verification-audio")
    box = player.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + box["height"] / 2)
    wait_until(page, "!document.querySelector('audio.verification-audio').paused || document.querySelector('audio.verification-audio').ended")
    page.keyboard.press("1")
    assert page.locator("input[data-key='1']").is_checked()
    page.keyboard.press("r")
    page.wait_for_selector(".message--success")
    review = Review.objects.get(annotator=annotator)
    assert review.decision == "reject" and review.reasons == ["wrong_answer"]
