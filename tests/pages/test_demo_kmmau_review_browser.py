"""In a real browser, on the demo data with the scripted demo provider: an admin has the question writer
write KMMAU questions, and an annotator finds them in review and approves one (issue 20: every agent-written
question used to end "needs attention", so review could not be tried at all)."""

import io

import pytest

from apps.authoring.models import Question, QuestionStatus
from tests.authoring.test_review_browser import UNLOCKED
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_agent_written_demo_questions_reach_review_and_an_annotator_approves_one(
        demo_provider, browser, admin, annotators, login, live_server, settings):
    from apps.authoring.demo import DEMO_SET, seed_demo
    from apps.authoring.models import QuestionSet

    settings.JOB_RUNNER = "sync"  # the job runs inside the request; the page then shows its outcome
    seed_demo(io.StringIO())
    question_set = QuestionSet.objects.get(name=DEMO_SET)
    # A fresh demo's review queue has work: the seed had the question writer write two per agent capability that
    # wait for review (besides two per capability that annotator2 and annotator3 approved, for Table 6).
    agent = Question.objects.filter(question_set=question_set, method="agent")
    before = dict(agent.values_list("pk", "status"))
    assert sorted(before.values()) == [QuestionStatus.ACCEPTED] * 4 + [QuestionStatus.IN_REVIEW] * 4

    admin_page = browser.new_context().new_page()
    login(admin_page, admin)
    admin_page.goto(f"{live_server.url}/authoring/sets/{question_set.pk}/")
    admin_page.select_option("#make ~ form select[name=capability]", "fact_extraction")
    admin_page.fill("#make ~ form input[name=limit]", "4")
    with admin_page.expect_navigation():
        admin_page.click("#make ~ form button[type=submit]")
    assert "Succeeded" in admin_page.locator(".job-progress").inner_text()
    written = agent.filter(status=QuestionStatus.IN_REVIEW)
    waiting = set(written.values_list("pk", flat=True))
    assert len(waiting) == 4 + 4 and len(set(agent.values_list("pk", flat=True)) - set(before)) == 4

    # Two annotators review each agent-written question (the set's default): each approves what it is shown.
    shown = set()
    pages = []
    for annotator in annotators[:2]:
        review_page = browser.new_context().new_page()
        pages.append(review_page)
        login(review_page, annotator)
        for _ in range(len(waiting)):
            review_page.goto(f"{live_server.url}/authoring/sets/{question_set.pk}/review/")
            assert review_page.get_by_text("Nothing to review").count() == 0
            shown.add(int(review_page.locator("input[name=question]").get_attribute("value")))
            if review_page.locator("#approve").is_disabled():  # the playback gate (open if they played it before)
                review_page.evaluate("document.getElementById('clip-audio').play()")
                wait_until(review_page, UNLOCKED, timeout=15000)
            with review_page.expect_navigation():
                review_page.click("#approve")
            assert review_page.get_by_text("Review saved.").count() == 1
    assert shown == waiting
    assert set(agent.filter(pk__in=waiting).values_list("status", flat=True)) == {QuestionStatus.ACCEPTED}
    admin_page.context.close()
    for review_page in pages:
        review_page.context.close()
