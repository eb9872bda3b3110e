"""In a real browser, on the demo data with the scripted demo provider and demo ASR (as ./scripts/demo runs
them without a key): an admin takes the English demo benchmark through every stage from its page, ground
truth, hypertranslation, normalization, synthesis with the ASR check, and builds and downloads a spoken-QA
release whose archive holds the audio (issue 20)."""

import io
import zipfile

import pytest

from apps.releases.models import Release
from apps.sources.models import SourceBenchmark

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_asr(settings):
    settings.SPEECH_ASR = {**settings.SPEECH_ASR, "backend": "demo"}
    settings.JOB_RUNNER = "sync"  # each stage's job runs inside its request: the redirected page shows the outcome
    settings.SPEECH_DISPATCH, settings.SPEECH_WORKERS = "inline", 1
    settings.TRANSFER_REVIEW_WORKERS = settings.TRANSFER_TRANSLATE_WORKERS = settings.TRANSFER_NORMALIZE_WORKERS = 1


def _start(page, url, button, **fields):
    page.goto(url)
    for selector, value in fields.items():
        page.select_option(f"#{selector}", value)
    with page.expect_navigation():
        page.click(f"button:has-text('{button}')")


def test_an_admin_takes_an_english_demo_sample_to_a_downloaded_spoken_qa_release_with_audio(
        demo_provider, demo_asr, admin, page, login, live_server, tmp_path):
    from apps.speech.demo import seed as seed_voices
    from apps.transfer.demo import seed as seed_transfer

    seed_transfer(io.StringIO())
    seed_voices(io.StringIO())
    base = live_server.url
    login(page, admin)
    _start(page, f"{base}/transfer/ground-truth/", "Start the review", id_benchmark="voicebench-demo")
    _start(page, f"{base}/transfer/translations/", "Start translating", id_benchmark="voicebench-demo")
    _start(page, f"{base}/transfer/normalize/", "Start a normalization run", **{"id_run-benchmark": "voicebench-demo"})
    page.goto(f"{base}/speech/")
    assert "demo answers, not a real model" in page.content()
    _start(page, f"{base}/speech/", "Synthesize", id_benchmark="voicebench-demo")
    benchmark = SourceBenchmark.objects.get(name="voicebench-demo")
    assert page.locator(".badge--passed").count() == benchmark.samples.count()  # each sample passed the ASR check

    page.goto(f"{base}/releases/")
    page.select_option("#id_source", f"spoken-qa:{benchmark.pk}")
    page.fill("#id_name", "kvoicebench-demo")
    page.fill("#id_version", "1.0.0")
    with page.expect_navigation():
        page.click("#build-release button[type=submit]")
    page.wait_for_selector("#download-release")
    with page.expect_download() as download:
        page.click("#download-release")
    saved = tmp_path / "release.zip"
    download.value.save_as(saved)
    names = zipfile.ZipFile(saved).namelist()
    assert len([n for n in names if n.endswith(".wav")]) == benchmark.samples.count()
    assert Release.objects.get(name="kvoicebench-demo").sources == [{"name": "VoiceBench", "license": "Apache-2.0"}]
