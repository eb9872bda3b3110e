"""A spoken-QA release of a translated benchmark is the Korean one: normalized text, Korean answers and
aliases, the rulebook versions behind each item; what hypertranslation deleted or left undecided, or what is
not normalized yet, stays out with its reason."""

import json

import pytest

from apps.transfer.models import NormalizedText, SourceSample, Translation


@pytest.fixture
def versions(db):
    from apps.consultations.models import Rulebook, RulebookVersion

    def version(slug, kind):
        book = Rulebook.objects.create(slug=slug, language="ko", kind=kind, title=slug)
        return RulebookVersion.objects.create(rulebook=book, number=2, source="test")

    return version("ko-hypertranslation", "hypertranslation"), version("ko-normalization", "normalization")


@pytest.mark.django_db
def test_a_translated_benchmark_releases_its_normalized_korean(benchmark, versions, build, extracted):
    hyper, norm = versions
    samples = {s.transcription: s for s in SourceSample.objects.filter(subset="sd-qa")}
    spider = samples["How many legs does a spider have?"]
    t = Translation.objects.create(sample=spider, rulebook_version=hyper, action="direct_translation",
                                   source_transcription=spider.transcription, source_answer="eight",
                                   transcription_ko="거미는 다리가 몇 개인가요?", answer_ko="8개", aliases_ko=["여덟 개"])
    NormalizedText.objects.create(sample=spider, translation=t, rulebook_version=norm, source_text=t.transcription_ko,
                                  text="거미는 다리가 몇 개인가요?", status="ok")
    hamlet = samples["Who wrote Hamlet?"]
    Translation.objects.create(sample=hamlet, rulebook_version=hyper, action="deletion", reason="English-specific",
                               source_transcription=hamlet.transcription)
    australia = samples["What is the capital of Australia?"]
    Translation.objects.create(sample=australia, rulebook_version=hyper, action="direct_translation",
                               source_transcription=australia.transcription, transcription_ko="호주의 수도는?",
                               answer_ko="캔버라")

    release = build("spoken-qa", benchmark, name="kvb")
    folder = extracted(release)
    rows = [json.loads(line) for line in (folder / "data/sd-qa.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(r["transcription"], r["answer"], r["aliases"]) for r in rows] == [("거미는 다리가 몇 개인가요?", "8개", ["여덟 개"])]
    excluded = release.manifest["excluded"]
    assert excluded[f"sd-qa/{hamlet.source_id}"] == "hypertranslation: deletion (English-specific)"
    assert excluded[f"sd-qa/{australia.source_id}"] == "no speech-ready normalized text of its current translation yet"
    provenance = json.loads((folder / "provenance.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert provenance["rulebook_versions"] == ["ko-hypertranslation v2", "ko-normalization v2"]
    assert provenance["translation"]["action"] == "direct_translation"
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "language:\n- ko\n" in card and "Rulebook versions: ko-hypertranslation v2, ko-normalization v2." in card
