"""The whole spoken-QA pipeline in the demo, without a key: from the English demo samples through the
ground-truth review, hypertranslation, normalization, synthesis and the ASR check to a built spoken-QA
release with audio, against the scripted demo provider and the scripted demo ASR (demo answers, not a real
model) as ./scripts/demo runs them."""

import io

import pytest

from apps.releases.services import create_release, extract
from apps.sources.models import SourceBenchmark
from apps.speech import services as speech
from apps.speech.backends import asr_backend
from apps.speech.models import SampleStatus
from apps.speech.selectors import backend_status
from apps.transfer import selectors
from apps.transfer.ground_truth.services import start_ground_truth_review
from apps.transfer.hypertranslation import selectors as translation_selectors
from apps.transfer.hypertranslation.services import start_translation_run
from apps.transfer.normalization.services import start_normalization_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_asr(settings):
    """What ./scripts/demo sets when no ASR is configured."""
    settings.SPEECH_ASR = {**settings.SPEECH_ASR, "backend": "demo"}
    settings.SPEECH_DISPATCH, settings.SPEECH_WORKERS = "inline", 1  # worker threads cannot see this test's rows
    settings.TRANSFER_REVIEW_WORKERS = settings.TRANSFER_TRANSLATE_WORKERS = settings.TRANSFER_NORMALIZE_WORKERS = 1


def test_an_english_demo_sample_becomes_a_spoken_qa_release_with_audio(
        demo_provider, demo_asr, admin, tmp_path, django_capture_on_commit_callbacks):
    from apps.speech.demo import seed as seed_voices
    from apps.transfer.demo import seed as seed_transfer

    seed_transfer(io.StringIO())
    seed_voices(io.StringIO())
    benchmark = SourceBenchmark.objects.get(name="voicebench-demo")
    samples = benchmark.samples.count()  # every VoiceBench subset, a few items each
    asr = backend_status()[1]
    assert (asr["backend"], asr["scripted"], asr["missing"]) == ("demo", True, None)

    with django_capture_on_commit_callbacks(execute=True):
        review = start_ground_truth_review(benchmark="voicebench-demo", acting_user=admin)
    review.job.refresh_from_db()
    assert review.job.status == "succeeded"
    with django_capture_on_commit_callbacks(execute=True):
        translation = start_translation_run(benchmark="voicebench-demo", acting_user=admin)
    assert {t.action for t in translation_selectors.run_translations(translation)} == {"direct_translation"}
    with django_capture_on_commit_callbacks(execute=True):
        normalization = start_normalization_run(benchmark="voicebench-demo", acting_user=admin)
    assert normalization.outputs.filter(status="ok").count() == samples
    assert selectors.ready_for_speech(benchmark=benchmark).count() == samples

    with django_capture_on_commit_callbacks(execute=True):
        run = speech.start_run(acting_user=admin, benchmark=benchmark)
    run.refresh_from_db()
    assert (run.asr_backend, run.asr_model) == ("demo", "demo-asr")
    assert set(run.samples.values_list("status", flat=True)) == {SampleStatus.PASSED}
    for synthesis in run.samples.select_related("final_attempt"):
        assert synthesis.final_attempt.transcript == synthesis.text and synthesis.final_attempt.cer == 0

    with django_capture_on_commit_callbacks(execute=True):
        release = create_release(acting_user=admin, kind="spoken-qa", source_id=benchmark.pk, name="kvoicebench-demo",
                                 version="1.0.0", sources=[{"name": "VoiceBench", "license": "Apache-2.0"}])
    release.refresh_from_db()
    assert release.status == "built", release.job.error
    folder = extract(release, tmp_path / "out")
    audio = sorted(p.name for p in folder.rglob("*.wav"))
    assert len(audio) == samples


def test_the_demo_asr_refuses_audio_the_speech_stage_did_not_synthesize(demo_asr, make_wav):
    from apps.speech.backends import PermanentSpeechError

    with pytest.raises(PermanentSpeechError, match="demo answers, not a real model"):
        asr_backend().transcribe(make_wav("other.wav").read_bytes(), filename="other.wav")
