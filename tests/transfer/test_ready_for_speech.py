"""The seam the speech stage reads: the current, status-ok normalized text of each included sample."""

import pytest

from apps.consultations.rulebooks import get_version, load_rulebooks
from apps.sources.models import SourceBenchmark
from apps.transfer.models import NormalizedText, Translation
from apps.transfer.selectors import current_translations, ready_for_speech

pytestmark = pytest.mark.django_db


def _translate(sample, version, action="direct_translation", **fields):
    return Translation.objects.create(
        sample=sample, rulebook_version=version, action=action, source_transcription=sample.transcription,
        transcription_ko=fields.pop("transcription_ko", "번역"), **fields)


def _normalize(sample, version, translation, status="ok", text="정규화", reason=""):
    return NormalizedText.objects.create(sample=sample, translation=translation, rulebook_version=version,
                                         text=text, status=status, attention_reason=reason)


def test_ready_for_speech_reads_the_current_ok_row_of_included_samples(source_samples, admin):
    load_rulebooks()
    hyper, norm = get_version("ko-hypertranslation", 1), get_version("ko-normalization", 1)
    benchmark = SourceBenchmark.objects.get(name="voicebench")
    a, b, c, d = source_samples[:4]
    t_a = _translate(a, hyper)
    _normalize(a, norm, t_a, text="옛 것")
    newest_a = _normalize(a, norm, t_a, text="새 것")  # a re-normalization supersedes
    t_b = _translate(b, hyper)
    _normalize(b, norm, t_b, status="needs_attention", reason="digit left: 3")
    t_c = _translate(c, hyper)
    _normalize(c, norm, t_c)
    _translate(c, hyper, transcription_ko="고친 번역", corrects=t_c, edited_by=admin)  # waits for a new one
    t_d = _translate(d, hyper)
    newest_d = _normalize(d, norm, t_d)

    assert list(ready_for_speech(benchmark=benchmark)) == [newest_a, newest_d]
    assert list(ready_for_speech(benchmark=benchmark, limit=1)) == [newest_a]
    assert list(ready_for_speech(benchmark=benchmark, subset="other")) == []
    assert current_translations(benchmark=benchmark).get(sample=c).transcription_ko == "고친 번역"


def test_outputs_are_never_overwritten(source_samples):
    load_rulebooks()
    row = _translate(source_samples[0], get_version("ko-hypertranslation", 1))
    row.answer_ko = "changed"
    with pytest.raises(ValueError, match="never overwritten"):
        row.save()
