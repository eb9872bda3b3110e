"""A spoken-QA release of a translated benchmark is the Korean one: normalized text, Korean answers and
aliases, the rulebook versions behind each item; what hypertranslation deleted or left undecided, or what is
not normalized yet, stays out with its reason; each released sample carries its accepted synthesis as audio and
its provenance the synthesis attempts with their check, and a sample without accepted audio stays out too."""

import hashlib
import json

import pytest
from django.urls import reverse

from apps.sources.models import SourceSample
from apps.transfer.models import NormalizedText, Translation


@pytest.fixture
def versions(db):
    from apps.consultations.models import Rulebook, RulebookVersion

    def version(slug, kind):
        book = Rulebook.objects.create(slug=slug, language="ko", kind=kind, title=slug)
        return RulebookVersion.objects.create(rulebook=book, number=2, source="test")

    return version("ko-hypertranslation", "hypertranslation"), version("ko-normalization", "normalization")


@pytest.fixture
def synthesize(db, make_wav):
    """synthesize(normalized, cers, status="passed") -> the sample's synthesis: one attempt per CER (each a real
    WAV of its own), the last one kept when the status is final. Rows made directly: the speech stage's own
    tests run the TTS/ASR machinery."""
    from apps.audio.services import import_audio_file
    from apps.speech.models import ReferenceVoice, SampleSynthesis, SynthesisAttempt, SynthesisRun

    counter = {"n": 0}

    def make(normalized, cers, status="passed"):
        counter["n"] += 1
        n = counter["n"]
        clip, _ = import_audio_file(make_wav(f"voice{n}.wav", seconds=0.5, freq=200 + n))
        voice = ReferenceVoice.objects.create(name=f"voice {n}", gender="female", clip=clip, transcript="목소리입니다.")
        run = SynthesisRun.objects.get_or_create(benchmark=normalized.sample.benchmark, defaults={
            "tts_backend": "openai", "tts_model": "gpt-4o-mini-tts", "asr_backend": "openai", "asr_model": "whisper-1"})[0]
        synthesis = SampleSynthesis.objects.create(run=run, sample=normalized.sample, normalized=normalized,
                                                   text=normalized.text, gender="female", voice=voice)
        attempt = None
        for number, cer in enumerate(cers, start=1):
            asset, _ = import_audio_file(make_wav(f"s{n}-{number}.wav", seconds=0.3, freq=400 + 10 * n + number))
            attempt = SynthesisAttempt.objects.create(
                synthesis=synthesis, number=number, idempotency_key=f"{n}-{number}", voice=voice, seed=number,
                text=normalized.text, text_sha256=hashlib.sha256(normalized.text.encode()).hexdigest(),
                tts_backend="openai", tts_model="gpt-4o-mini-tts", asr_model="whisper-1", asset=asset,
                transcript=normalized.text if cer == 0 else "다른 말", cer=cer, wer=cer, passed=cer <= 0.1)
        if status in ("passed", "accepted"):
            synthesis.final_attempt, synthesis.status = attempt, status
            synthesis.save()
        else:
            synthesis.status = status
            synthesis.save()
        return synthesis

    return make


def _translate(sample, versions, text, answer="답"):
    hyper, norm = versions
    t = Translation.objects.create(sample=sample, rulebook_version=hyper, action="direct_translation",
                                   source_transcription=sample.transcription, source_answer=sample.answer,
                                   transcription_ko=text, answer_ko=answer)
    return NormalizedText.objects.create(sample=sample, translation=t, rulebook_version=norm, source_text=text,
                                         text=text, status="ok")


@pytest.mark.django_db
def test_a_translated_benchmark_releases_its_normalized_korean(benchmark, versions, build, extracted, synthesize):
    hyper, norm = versions
    samples = {s.transcription: s for s in SourceSample.objects.filter(subset="sd-qa")}
    spider = samples["How many legs does a spider have?"]
    t = Translation.objects.create(sample=spider, rulebook_version=hyper, action="direct_translation",
                                   source_transcription=spider.transcription, source_answer="eight",
                                   transcription_ko="거미는 다리가 몇 개인가요?", answer_ko="8개", aliases_ko=["여덟 개"])
    normalized = NormalizedText.objects.create(sample=spider, translation=t, rulebook_version=norm,
                                               source_text=t.transcription_ko, text="거미는 다리가 몇 개인가요?", status="ok")
    synthesize(normalized, [0.0])
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
    assert rows[0]["audio"] == f"audio/sd-qa/{spider.source_id}.wav" and (folder / rows[0]["audio"]).is_file()
    excluded = release.manifest["excluded"]
    assert excluded[f"sd-qa/{hamlet.source_id}"] == "hypertranslation: deletion (English-specific)"
    assert excluded[f"sd-qa/{australia.source_id}"] == "no speech-ready normalized text of its current translation yet"
    provenance = json.loads((folder / "provenance.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert provenance["rulebook_versions"] == ["ko-hypertranslation v2", "ko-normalization v2"]
    assert provenance["translation"]["action"] == "direct_translation"
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "language:\n- ko\n" in card and "Rulebook versions: ko-hypertranslation v2, ko-normalization v2." in card


@pytest.mark.django_db
def test_released_samples_carry_their_accepted_audio_and_its_attempts(
        benchmark, versions, build, extracted, synthesize, admin, client_for, django_assert_num_queries):
    from apps.speech.models import SynthesisDecision

    samples = {s.transcription: s for s in SourceSample.objects.filter(subset="sd-qa")}
    spider = _translate(samples["How many legs does a spider have?"], versions, "거미는 다리가 몇 개인가요?")
    hamlet = _translate(samples["Who wrote Hamlet?"], versions, "햄릿을 쓴 사람은 누구인가요?")
    capital = _translate(samples["What is the capital of Australia?"], versions, "호주의 수도는?")
    seoul = _translate(next(s for t, s in samples.items() if "capital" not in t and "spider" not in t and "Hamlet" not in t),
                       versions, "한국의 수도는?")
    passed = synthesize(spider, [0.4, 0.25, 0.0])  # two failed checks, then a pass with another seed
    accepted = synthesize(hamlet, [0.3], status="accepted")
    SynthesisDecision.objects.create(synthesis=accepted, action="accept", attempt=accepted.final_attempt,
                                     note="sounds right", decided_by=admin)
    synthesize(capital, [0.5, 0.6], status="needs_attention")
    # Seoul's normalized text was redone after its synthesis: that audio says the old text.
    synthesize(seoul, [0.0])
    NormalizedText.objects.create(sample=seoul.sample, translation=seoul.translation, rulebook_version=seoul.rulebook_version,
                                  source_text="한국의 수도는?", text="한국의 수도는 어디인가요?", status="ok")

    release = build("spoken-qa", benchmark, name="kvb")
    folder = extracted(release)
    rows = {r["id"]: r for r in map(json.loads, (folder / "data/sd-qa.jsonl").read_text(encoding="utf-8").splitlines())}
    spider_id, hamlet_id = f"sd-qa/{spider.sample.source_id}", f"sd-qa/{hamlet.sample.source_id}"
    assert sorted(rows) == sorted([spider_id, hamlet_id])
    for synthesis, item_id in ((passed, spider_id), (accepted, hamlet_id)):
        kept = synthesis.final_attempt.asset
        path = folder / rows[item_id]["audio"]
        assert rows[item_id]["audio"].startswith("audio/sd-qa/")
        assert hashlib.sha256(path.read_bytes()).hexdigest() == kept.sha256  # the kept attempt, not an earlier one
    excluded = release.manifest["excluded"]
    assert excluded[f"sd-qa/{capital.sample.source_id}"].startswith("no accepted audio yet")
    assert excluded[f"sd-qa/{seoul.sample.source_id}"] == "its accepted audio was synthesised from an earlier normalized text"
    assert "| samples with audio | 2 |" in (folder / "README.md").read_text(encoding="utf-8")

    lines = {p["id"]: p for p in map(json.loads, (folder / "provenance.jsonl").read_text(encoding="utf-8").splitlines())}
    attempts = lines[spider_id]["synthesis"]
    assert [(a["attempt"], a["voice"], a["backend"], a["cer"], a["passed"], a["kept"]) for a in attempts] == [
        (1, passed.voice.name, "openai", 0.4, False, False), (2, passed.voice.name, "openai", 0.25, False, False),
        (3, passed.voice.name, "openai", 0.0, True, True)]
    assert attempts[2]["check"] == "CER 0.000 (whisper-1): passed"
    assert lines[spider_id]["audio"]["decided"] == "passed"
    speech = [d for d in lines[hamlet_id]["human_decisions"]["decisions"] if d["kind"] == "speech decision"]
    assert len(speech) == 1 and speech[0]["by"].startswith("P") and "alice_admin" not in json.dumps(lines[hamlet_id])

    # The Parquet's Audio column points at the same files.
    import pyarrow.parquet as pq

    table = pq.read_table(folder / "data/sd-qa.parquet").to_pylist()
    assert {r["id"]: r["audio"]["path"] for r in table} == {i: r["audio"] for i, r in rows.items()}

    client = client_for(admin)
    url = reverse("releases:item", args=[release.pk, spider_id])
    client.get(url)  # warm the session
    # Attempts come from the stored provenance line: no query for them (no agent call, no person: 7 - 2).
    with django_assert_num_queries(5):
        html = client.get(url).content.decode()
    assert html.count("CER 0.") == 3 and "gpt-4o-mini-tts" in html and passed.voice.name in html
    hamlet_html = client.get(reverse("releases:item", args=[release.pk, hamlet_id])).content.decode()
    assert "speech decision" in hamlet_html and "alice_admin" in hamlet_html  # admins see the person


@pytest.mark.django_db
def test_a_release_with_audio_rebuilds_byte_for_byte(benchmark, versions, build, extracted, synthesize):
    from apps.releases.models import Release
    from apps.releases.writing import files_under

    samples = list(SourceSample.objects.filter(subset="sd-qa").order_by("pk"))
    for i, sample in enumerate(samples):
        synthesize(_translate(sample, versions, f"질문 {i}입니다."), [0.0])

    def hashes(release):
        folder = extracted(release)
        return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files_under(folder)}

    first = build("spoken-qa", benchmark, name="kvb-audio")
    before, archive = hashes(first), first.archive_sha256
    assert len([f for f in before if f.startswith("audio/")]) == len(samples)
    Release.objects.filter(pk=first.pk).delete()
    second = build("spoken-qa", benchmark, name="kvb-audio")
    assert hashes(second) == before and second.archive_sha256 == archive
