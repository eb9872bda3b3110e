"""A run on a Korean spoken-QA release: its items are the release's (Korean question, answer and aliases, the
same ids as the English source), and collection sends the audio stored in the release's archive."""

import base64

import pytest

from apps.agents.fake_server import audio_parts
from apps.evaluation.services import create_run, start_collection
from apps.sources.models import SourceSample
from apps.transfer.models import NormalizedText, Translation
from tests.releases.conftest import benchmark, build  # noqa: F401 (fixtures)
from tests.releases.test_spoken_qa import synthesize, versions  # noqa: F401 (fixtures)


@pytest.fixture
def korean_release(benchmark, versions, build, synthesize):  # noqa: F811
    hyper, norm = versions
    spider = SourceSample.objects.get(transcription="How many legs does a spider have?")
    t = Translation.objects.create(sample=spider, rulebook_version=hyper, action="direct_translation",
                                   source_transcription=spider.transcription, source_answer="eight",
                                   transcription_ko="거미는 다리가 몇 개인가요?", answer_ko="8개", aliases_ko=["여덟 개"])
    normalized = NormalizedText.objects.create(sample=spider, translation=t, rulebook_version=norm,
                                               source_text=t.transcription_ko, text=t.transcription_ko, status="ok")
    synthesis = synthesize(normalized, [0.0])
    return build("spoken-qa", benchmark, name="kvoicebench"), spider, synthesis


@pytest.mark.django_db
def test_a_korean_release_run_sends_the_archived_audio(korean_release, qwen, fake_endpoint, admin, django_capture_on_commit_callbacks):
    release, spider, synthesis = korean_release
    run = create_run(model=qwen, release=release, acting_user=admin)

    item = run.items.get()
    assert (run.language, run.benchmark_name, run.family) == ("ko", "kvoicebench", "spoken-qa")
    assert (item.item_id, item.subset, item.metric) == (f"sd-qa/{spider.source_id}", "sd-qa", "qa")
    assert (item.question, item.answer, item.aliases) == ("거미는 다리가 몇 개인가요?", "8개", ["여덟 개"])
    assert item.source_sample_id == spider.pk and item.release_item.release_id == release.pk

    fake_endpoint.always("여덟 개입니다.")
    with django_capture_on_commit_callbacks(execute=True):
        job = start_collection(run=run, acting_user=admin)
    job.refresh_from_db()

    assert job.status == "succeeded", job.error
    sent = base64.b64decode(audio_parts(fake_endpoint.requests[0]["body"])[0]["data"])
    with synthesis.final_attempt.asset.file.open("rb") as fh:
        assert sent == fh.read()
    assert run.items.get().response == "여덟 개입니다."
