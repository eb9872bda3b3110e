"""An annotator in Chromium approves an item with the keyboard and rejects the next with a reason."""

import pytest

from apps.verification.models import Review, ReviewEvent


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_annotator_approves_with_the_keyboard_and_rejects_with_a_reason(make_project, annotator, page, login, live_server):
    project = make_project(2)
    login(page, annotator)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/review/")
    first_id = page.locator(".verification-item code").first.inner_text()
    page.wait_for_timeout(300)  # a moment on the item, so time spent is measurable
    page.keyboard.press("a")
    page.wait_for_url(f"**/verification/projects/{project.pk}/review/")
    page.locator(".messages").get_by_text(f"approve on {first_id}").wait_for()
    second_id = page.locator(".verification-item code").first.inner_text()
    assert second_id != first_id
    page.keyboard.press("r")  # no reason yet: nothing is sent, the page asks for one
    assert "Choose at least one reason" in page.locator("#review-hint").inner_text()
    page.keyboard.press("2")
    page.keyboard.press("r")
    page.locator("#nothing-left").wait_for()
    approved = Review.objects.get(item__external_id=first_id, annotator=annotator)
    rejected = Review.objects.get(item__external_id=second_id, annotator=annotator)
    assert approved.decision == "approve" and approved.seconds_spent > 0.2
    assert (rejected.decision, rejected.reasons) == ("reject", ["ambiguous_question"])
    assert ReviewEvent.objects.count() == 2
