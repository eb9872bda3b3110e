"""A release that would hold nothing is refused before its build starts, saying what is missing (issue 20:
the build job used to fail with a StopIteration traceback from the card)."""

import pytest

from apps.core.errors import Conflict
from apps.releases.models import Release
from apps.releases.services import create_release
from apps.sources.models import SourceSample
from apps.transfer.models import NormalizedText, Translation

pytestmark = pytest.mark.django_db


def test_a_verification_project_with_no_accepted_item_is_refused_before_building(make_project, admin):
    project = make_project(records=[])
    with pytest.raises(Conflict) as refused:
        create_release(acting_user=admin, kind="hpsu", source_id=project.pk, name="hpsu-empty", version="1.0.0",
                       license="CC-BY-NC-SA-4.0", sources=[{"name": "HPSU", "license": "CC-BY-NC-SA-4.0"}])
    assert refused.value.code == "nothing_to_release" and "no accepted item yet" in refused.value.message
    assert not Release.objects.exists()


def test_a_translated_benchmark_without_accepted_audio_is_refused_naming_the_speech_stage(benchmark, admin):
    from apps.consultations.models import Rulebook, RulebookVersion

    book = Rulebook.objects.create(slug="ko-hypertranslation", language="ko", kind="hypertranslation", title="h")
    version = RulebookVersion.objects.create(rulebook=book, number=1, source="test")
    sample = SourceSample.objects.filter(subset="sd-qa").first()
    Translation.objects.create(sample=sample, rulebook_version=version, action="direct_translation",
                               source_transcription=sample.transcription, transcription_ko="호주의 수도는?", answer_ko="캔버라")
    with pytest.raises(Conflict) as refused:
        create_release(acting_user=admin, kind="spoken-qa", source_id=benchmark.pk, name="kvb-empty", version="1.0.0")
    assert "no sample has accepted audio yet" in refused.value.message and "/speech/" in refused.value.message
    assert not Release.objects.exists() and not NormalizedText.objects.exists()


def test_a_benchmark_named_for_its_demo_still_names_its_source(tmp_path, build):
    # voicebench-demo was imported in VoiceBench's layout: its source is VoiceBench, without typing it.
    import json

    from apps.sources.models import SourceBenchmark
    from apps.sources.services import import_benchmark

    path = tmp_path / "sd-qa.jsonl"
    path.write_text(json.dumps({"prompt": "What is the capital of France?", "reference": "Paris"}))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path, benchmark="voicebench-demo")
    release = build("spoken-qa", SourceBenchmark.objects.get(name="voicebench-demo"), name="vb-demo")
    assert release.sources == [{"name": "VoiceBench", "license": "Apache-2.0"}]
