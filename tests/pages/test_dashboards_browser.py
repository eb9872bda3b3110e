"""Dashboards in a real browser: no 500 when reviews exist but no item has two reviewers, an empty and a
thin state for agreement, reason labels instead of codes, and a friendly page when something does fail."""

import pytest

from apps.verification import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _review(project, annotator, decision="approve", reasons=None):
    item = services.next_item(project=project, acting_user=annotator)
    services.submit_review(item=item, acting_user=annotator, decision=decision, reasons=reasons or [])
    return item


def test_the_verification_dashboard_says_not_enough_overlap_when_no_item_has_two_reviewers(
    make_project, annotators, admin, page, login, live_server
):
    project = make_project(3)
    # Each annotator reviews a different item: reviews exist, but no item has two.
    first = _review(project, annotators[0], "reject", ["wrong_answer"])
    second = services.next_item(project=project, acting_user=annotators[1])
    if second.pk == first.pk:
        services.skip_item(item=second, acting_user=annotators[1])
        second = services.next_item(project=project, acting_user=annotators[1])
    services.submit_review(item=second, acting_user=annotators[1], decision="approve")
    login(page, admin)
    response = page.goto(f"{live_server.url}/verification/projects/{project.pk}/")
    assert response.status == 200
    assert "Not enough overlapping reviews yet" in page.locator("#agreement").inner_text()
    reasons = page.get_by_text("Wrong answer: 1")
    assert reasons.count() == 1
    assert "wrong_answer" not in page.locator("main").inner_text()


def test_agreement_on_a_few_items_is_shown_with_a_thin_data_warning(make_project, annotators, admin, page, login, live_server):
    project = make_project(1)
    for a in annotators:
        _review(project, a)
    login(page, admin)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/")
    text = page.locator("#agreement").inner_text()
    assert "Not enough overlapping" not in text
    assert "Fleiss' kappa" in text and page.locator("#agreement-thin").is_visible()
    assert "100.00 %" in page.locator("#acceptance-rate").inner_text()


@pytest.mark.urls("tests.pages.crash_urls")
def test_a_failing_page_shows_the_friendly_500_page(admin, page, login, live_server):
    login(page, admin)
    response = page.goto(f"{live_server.url}/boom/")
    assert response.status == 500
    assert page.get_by_role("heading", name="Something went wrong on our side").is_visible()
    assert "nothing you had saved is lost" in page.locator("main").inner_text()
