"""Keyboard only: focus starts on the clip's player, stays there while it plays, moves to the answers once they
unlock; Enter on a reason or an option chooses it and never sends the form."""

import pytest

from apps.consultations.models import ExpertAnswer
from apps.listening.models import Rating
from apps.listening.services import record_consent
from apps.verification.models import Review
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ACTIVE = "document.activeElement && (document.activeElement.id || document.activeElement.dataset.score)"


def test_a_listener_rates_a_clip_with_the_keyboard_alone(make_test, listener, page, login, live_server):
    test = make_test(2, seconds=0.6)
    record_consent(test=test, acting_user=listener)
    login(page, listener)
    page.goto(f"{live_server.url}/listening/tests/{test.pk}/rate/")
    assert page.evaluate(ACTIVE) == "clip-audio"  # a new clip starts with focus on the player
    page.keyboard.press("Enter")  # the player's own key starts the clip
    wait_until(page, "!document.getElementById('clip-audio').paused || document.getElementById('clip-audio').ended")
    assert page.evaluate(ACTIVE) == "clip-audio"  # starting it by keyboard keeps focus on the player
    wait_until(page, "!document.querySelector(\"button[data-score='5']\").disabled", timeout=15000)
    assert page.evaluate(ACTIVE) in {"1", "2", "3", "4", "5"}  # focus moved to the scale once it unlocked
    assert page.get_attribute("#playback-status", "aria-live") == "polite"
    page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert Rating.objects.filter(listener=listener).count() == 1
    assert page.evaluate(ACTIVE) == "clip-audio"  # and the next clip starts on the player again


def test_enter_on_a_rejection_reason_toggles_it_and_records_no_approval(make_project, annotator, page, login, live_server):
    project = make_project(1)
    login(page, annotator)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/review/")
    page.focus("input[data-key='2']")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert page.is_checked("input[data-key='2']") and not Review.objects.exists()
    page.keyboard.press("r")  # the shortcuts still work
    page.locator("#nothing-left").wait_for()
    assert list(Review.objects.values_list("decision", "reasons")) == [("reject", ["ambiguous_question"])]


def test_enter_on_an_expert_option_chooses_it_without_submitting(make_question, expert, page, login, live_server):
    question = make_question()
    login(page, expert)
    page.goto(f"{live_server.url}/consultations/questions/{question.pk}/")
    page.focus("input[name=option][data-key='2']")
    page.keyboard.press("Enter")
    page.wait_for_timeout(1200)  # past the autosave's delay
    assert page.is_checked("input[name=option][data-key='2']")
    assert not ExpertAnswer.objects.filter(submitted_at__isnull=False).exists()
    page.check("input[name=confidence][value='4']")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert ExpertAnswer.objects.filter(submitted_at__isnull=False, option__key="B").count() == 1
