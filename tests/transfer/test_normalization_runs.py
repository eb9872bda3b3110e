"""Normalization runs: a job over a benchmark's current translations under a published normalization
version, the agent for context-dependent spans, validation failures left visible, the report, and the
seam the speech stage reads."""

from io import StringIO

import pytest
from django.apps import apps

from apps.consultations.rulebooks import get_version, load_rulebooks
from apps.jobs.models import Job, JobStatus
from apps.sources.models import SourceBenchmark
from apps.transfer.models import NormalizedText, Translation
from apps.transfer.normalization.services import start_normalization_run
from apps.transfer.selectors import ready_for_speech

KOREAN = ["스위스에서는 3개 언어를 씁니다. 무엇인가요?", "호주의 수도는 어디인가요? 인구는 12,345명입니다.",
          "거미는 하루에 3번 먹나요?", "햄릿을 쓴 사람은 the 작가인가요?", "가장 큰 행성은 무엇인가요?"]


@pytest.fixture
def translated(source_samples):
    load_rulebooks()
    version = get_version("ko-hypertranslation", 1)
    rows = [Translation.objects.create(sample=s, rulebook_version=version, action="direct_translation",
                                       source_transcription=s.transcription, transcription_ko=ko)
            for s, ko in zip(source_samples, KOREAN, strict=True)]
    Translation.objects.create(sample=source_samples[4], rulebook_version=version, action="deletion",
                               source_transcription=source_samples[4].transcription, reason="gone")
    return rows


@pytest.mark.django_db
def test_a_normalization_run_reads_every_current_translation(translated, fake_llm, admin, django_capture_on_commit_callbacks):
    fake_llm.always({"readings": [{"index": 1, "reading": "세 번"}]})
    with django_capture_on_commit_callbacks(execute=True):
        run = start_normalization_run(benchmark="voicebench", acting_user=admin)
    run.refresh_from_db()
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.SUCCEEDED and (job.done, job.total) == (4, 4)  # the deleted sample is not spoken
    assert run.rulebook_version == get_version("ko-normalization", 3)
    rows = {r.sample_id: r for r in NormalizedText.objects.filter(run=run)}
    swiss, australia, spider, hamlet = (rows[t.sample_id] for t in translated[:4])
    assert swiss.text == "스위스에서는 세 개 언어를 씁니다. 무엇인가요?" and swiss.status == "ok"
    assert swiss.rulebook_version == run.rulebook_version and swiss.translation == translated[0]
    assert australia.readings == [{"span": "12,345명", "reading": "만 이천삼백마흔다섯 명", "rules": ["nm-counter-numerals"]}]
    assert spider.text == "거미는 하루에 세 번 먹나요?" and spider.used_agent and spider.agent_call_id
    assert hamlet.status == "needs_attention" and hamlet.attention_reason == "Latin letters left: the"
    report = job.result["report"]
    assert (report["normalized"], report["needed_agent"], report["failed_validation"], report["ok"]) == (4, 1, 1, 3)
    assert ["nm-counter-numerals", 2] in report["top_rules"]

    benchmark = SourceBenchmark.objects.get(name="voicebench")
    assert [r.sample_id for r in ready_for_speech(benchmark=benchmark)] == [swiss.sample_id, australia.sample_id,
                                                                            spider.sample_id]
    # Running again normalizes nothing twice (a resumed run skips what is done).
    with django_capture_on_commit_callbacks(execute=True):
        again = start_normalization_run(benchmark="voicebench")
    assert NormalizedText.objects.filter(run=again).count() == 0 and NormalizedText.objects.count() == 4


@pytest.mark.django_db
def test_seed_demo_gives_the_speech_stage_normalized_texts_and_runs_twice_without_change():
    config = apps.get_app_config("transfer")
    config.seed_demo(StringIO())
    config.seed_demo(StringIO())
    demo = SourceBenchmark.objects.get(name="voicebench-demo")
    ready = list(ready_for_speech(benchmark=demo))
    # every demo sample of both benchmarks has its hand-written translation, normalized once
    assert len(ready) == demo.samples.count() == 20 and NormalizedText.objects.count() == 29
    spider = next(r for r in ready if "spider" in r.sample.transcription)
    assert spider.text == "거미의 다리는 여덟 개인가요, 여섯 개인가요?"
    assert all(r.translation.edit_note.startswith("demo data") for r in ready)
