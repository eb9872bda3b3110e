"""An admin starts a run on the speech page, opens a sample that needs attention, sees each attempt with
its player, transcript and marked differences, and accepts one by ear."""

import pytest

from apps.speech.models import SampleStatus, SampleSynthesis

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_audits_a_sample_from_source_to_audio_and_accepts_an_attempt(
        admin, voices, ready, fake_speech, page, login, live_server):
    ready(["햄릿을 쓴 사람은 누구인가요?"])
    fake_speech.mishear(times=3)
    login(page, admin)
    page.goto(f"{live_server.url}/speech/")
    assert "Missing" not in page.inner_text("section:has(h2:text('Backends'))")
    page.select_option("#id_benchmark", "voicebench")
    page.click("button:text('Synthesize')")
    page.wait_for_selector(".job-progress[data-status=succeeded]")
    assert "Needs attention: 1" in page.inner_text("main")

    page.click("text=sd-qa/")
    assert "Question 0?" in page.inner_text("main")  # the English source
    assert "햄릿을 쓴 사람은 누구인가요?" in page.inner_text("section:has(h2:text('3. Normalization'))")
    assert page.inner_text("[data-testid=final-status]") == "Needs attention"
    for number in (1, 2, 3):
        attempt = page.locator(f"[data-testid=attempt-{number}]")
        assert "ASR heard: 전혀 다른 말입니다" in attempt.inner_text()
        assert attempt.locator(".cer-diff del").count() >= 1  # the differing characters are marked
    # The player's source is served to the admin (and seekable).
    src = page.get_attribute("[data-testid=attempt-2] audio", "src")
    status = page.evaluate("async (src) => (await fetch(src, {headers: {Range: 'bytes=0-43'}})).status", src)
    assert status == 206

    page.click("button:text('Accept attempt 2 by ear')")
    page.wait_for_selector("text=Attempt 2 accepted by ear.")
    assert page.inner_text("[data-testid=final-status]") == "Accepted by ear"
    assert "alice_admin: Accepted an attempt by ear (attempt 2)" in page.inner_text("section:has(h2:text('Decisions'))")
    synthesis = SampleSynthesis.objects.get()
    assert synthesis.status == SampleStatus.ACCEPTED and synthesis.final_attempt.number == 2

