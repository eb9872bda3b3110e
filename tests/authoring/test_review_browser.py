"""In a real browser: a KMMAU reviewer can decide only after the clip played to its end; A approves, E opens the
edit form (closed until then) and Enter in it saves the edit, R rejects with a reason chosen by its number key."""

import pytest

from apps.audio.services import import_audio_file
from apps.authoring.models import Question, Review
from tests.authoring.conftest import make_agent_question
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UNLOCKED = "!document.querySelector('fieldset.review-decision').disabled"


def play_to_the_end(page) -> None:
    assert page.locator("#approve").is_disabled()
    page.keyboard.press("a")  # a key before the end decides nothing
    assert page.locator("#review-hint").inner_text() == "Play the clip to its end first."
    page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(page, UNLOCKED, timeout=15000)


def test_a_reviewer_plays_the_clip_then_approves_edits_and_rejects_by_key(browser, annotators, question_set,
                                                                         kss_corpus, corpus_folder, login, live_server):
    for i, clip in enumerate(kss_corpus.clips.order_by("id")):
        # Each clip its own audio, as in a real corpus: "played to the end" is recorded per audio file
        # (apps.audio.playback), so clips sharing the fixture's one file would all unlock with the first.
        clip.audio = import_audio_file(corpus_folder.wav(f"review-{i}.wav", seconds=1.5))[0]
        clip.save(update_fields=["audio"])
        make_agent_question(question_set, clip, dedup_key=f"fact-{i}")
    page = browser.new_context().new_page()
    login(page, annotators[0])
    page.goto(f"{live_server.url}/authoring/sets/{question_set.pk}/review/")
    assert page.locator("#review-progress").inner_text().startswith("Question 1 of 3")
    assert page.locator("#question-kind").inner_text().startswith("Fact Extraction")

    play_to_the_end(page)
    assert Review.objects.count() == 0
    with page.expect_navigation():
        page.keyboard.press("a")
    assert page.get_by_text("Review saved.").count() == 1
    assert page.locator("#review-progress").inner_text().startswith("Question 2 of 3")

    play_to_the_end(page)
    assert page.locator("#edit-fields").is_hidden()
    page.keyboard.press("e")
    assert page.locator("#edit-fields").is_visible()
    assert page.evaluate("document.activeElement.id") == "edit-text"
    page.fill("#edit-option3", "병원 앞")
    with page.expect_navigation():
        page.press("#edit-option3", "Enter")  # saves the edit, not the Approve button first in the form
    assert page.get_by_text("Review saved.").count() == 1

    play_to_the_end(page)
    page.keyboard.press("r")  # no reason yet: nothing is sent
    assert "Choose at least one reason" in page.locator("#review-hint").inner_text()
    page.keyboard.press("3")
    with page.expect_navigation():
        page.keyboard.press("r")
    decisions = {r.decision: (r.question_id, r.reasons) for r in Review.objects.filter(reviewer=annotators[0])}
    assert sorted(decisions) == ["approve", "edit", "reject"] and decisions["reject"][1] == ["hallucinated"]
    edited = Question.objects.get(pk=decisions["edit"][0])
    assert edited.options[3] == "병원 앞" and edited.version == 2
    assert page.locator("#nothing-to-review").count() == 1
    page.context.close()
