"""In a real browser: an annotator authors a question once the clip has played to its end, and a second
annotator answers it blind after listening; the match accepts it."""

import itertools

import pytest

from apps.authoring.models import BlindAnswer, Question
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_annotator_authors_after_playback_and_a_second_answers_blind(browser, annotators, question_set, kss_corpus,
                                                                        login, live_server):
    question_set.corpora.add(kss_corpus)
    author_page = browser.new_context().new_page()
    login(author_page, annotators[0])
    author_page.goto(f"{live_server.url}/authoring/sets/{question_set.pk}/author/?capability=general_counting")
    assert author_page.locator("#q-text").is_disabled()
    # The chosen capability is marked for assistive technology and for the eye (a filled tab, the others not).
    tabs = author_page.locator(".capability-tabs a")
    assert tabs.count() == 2 and author_page.locator(".capability-tabs a[aria-current=page]").inner_text() == "General Counting"
    backgrounds = [tabs.nth(i).evaluate("a => getComputedStyle(a).backgroundColor") for i in range(2)]
    assert backgrounds[0] != backgrounds[1]
    author_page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(author_page, "!document.querySelector('#gated-form fieldset').disabled", timeout=15000)
    author_page.fill("#q-text", "이 음성에서 말하는 사람은 몇 명인가요?")
    for i, option in enumerate(["한 명", "두 명", "세 명", "네 명"]):
        author_page.fill(f"#q-option{i}", option)
    author_page.check("#q-correct0")
    with author_page.expect_navigation():
        author_page.click("#gated-form button[type=submit]")
    assert author_page.get_by_text("another annotator will answer it blind").count() == 1
    question = Question.objects.get(question_set=question_set, capability="general_counting")
    assert question.status == "awaiting_answer" and question.author == annotators[0]

    answer_page = browser.new_context().new_page()
    login(answer_page, annotators[1])
    answer_page.goto(f"{live_server.url}/authoring/sets/{question_set.pk}/answer/")
    assert answer_page.get_by_text("이 음성에서 말하는 사람은 몇 명인가요?").count() == 1
    assert answer_page.locator("#gated-form button[value='한 명']").is_disabled()
    assert "✓" not in answer_page.content()  # nothing marks the author's answer
    boxes = [answer_page.locator("#gated-form button[name=choice]").nth(i).bounding_box() for i in range(4)]
    gaps = [b["x"] - (a["x"] + a["width"]) for a, b in itertools.pairwise(boxes) if abs(a["y"] - b["y"]) < 1]
    assert gaps and min(gaps) >= 8  # the answer buttons stand apart: a slip does not hit the neighbour
    answer_page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(answer_page, "!document.querySelector('#gated-form fieldset').disabled", timeout=15000)
    with answer_page.expect_navigation():
        answer_page.click("#gated-form button[value='한 명']")
    assert answer_page.get_by_text("Your answer matches the author's.").count() == 1
    assert BlindAnswer.objects.get().answerer == annotators[1]
    question.refresh_from_db()
    assert question.status == "accepted"
    author_page.context.close()
    answer_page.context.close()
