"""Form errors in a real browser: the message appears next to the button it concerns, not at the top."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_empty_answer_is_refused_beside_the_submit_button(make_question, expert, page, login, live_server):
    question = make_question()
    login(page, expert)
    page.goto(f"{live_server.url}/consultations/questions/{question.pk}/")
    page.click("#submit-answer")
    page.wait_for_selector(".field-error")
    note = page.locator("#error-near-submit-answer")
    assert note.is_visible() and note.inner_text()
    button, error = page.locator("#submit-answer").bounding_box(), note.bounding_box()
    assert abs(error["y"] - (button["y"] + button["height"])) < 80  # right under the button
    assert page.locator(".messages .message--error").count() == 0  # not also at the top of the page


def test_a_diff_naming_a_missing_version_lists_the_versions_that_exist(rulebooks, admin, page, login, live_server):
    login(page, admin)
    response = page.goto(f"{live_server.url}/consultations/rulebooks/ko-hypertranslation/diff/?from=1&to=7")
    text = page.locator("#diff-missing").inner_text()
    assert "has no version 7" in text and "v1" in text
    assert response.status == 200  # the rulebook exists: the page answers with the versions it has
    assert "nothing to compare yet" in text  # one version only: no diff to link to
    page.click("#diff-missing a:has-text('v1')")
    page.wait_for_url("**/rulebooks/ko-hypertranslation/v1/")
