import json

import pytest

from apps.audio.services import import_audio_file
from apps.consultations.models import Rulebook
from apps.consultations.rulebooks import get_version, load_rulebooks
from apps.sources.models import SourceBenchmark
from apps.sources.services import import_benchmark
from apps.speech.models import ReferenceVoice
from apps.transfer.models import NormalizedText, Translation

KOREAN = [
    "회의는 몇 시에 시작하나요?",
    "스위스에서는 어떤 언어를 쓰나요? 독일어와 프랑스어를 씁니다.",
    "거미는 다리가 몇 개인가요?",
    "햄릿을 쓴 사람은 누구인가요?",
    "가장 큰 행성은 무엇인가요?",
    "오늘 서울의 날씨는 맑습니다.",
]


@pytest.fixture(autouse=True)
def _speech_inline(settings):
    """Samples run on the test's thread (worker threads cannot see a test transaction's rows)."""
    settings.SPEECH_DISPATCH = "inline"
    settings.SPEECH_WORKERS = 1


@pytest.fixture
def voices(db, make_wav):
    """Two female and two male reference voices with real clips."""
    made = []
    for i, (name, gender) in enumerate([("지수", "female"), ("민지", "female"), ("준호", "male"), ("도윤", "male")]):
        asset, _ = import_audio_file(make_wav(f"voice{i}.wav", seconds=1.0, freq=300 + 50 * i))
        made.append(ReferenceVoice.objects.create(name=name, gender=gender, clip=asset, transcript=f"{name}의 목소리입니다."))
    return made


@pytest.fixture
def ready(db, tmp_path):
    """ready(texts) -> the benchmark whose samples have these normalized Korean texts, ready for speech."""

    def make(texts=KOREAN, subset="sd-qa"):
        load_rulebooks()
        # The newest normalization version: the normalizer reads transcripts with its tables (v2 and later).
        hyper = get_version("ko-hypertranslation", 1)
        norm = Rulebook.objects.get(slug="ko-normalization").latest_version()
        path = tmp_path / f"{subset}.jsonl"
        path.write_text("\n".join(json.dumps({"prompt": f"Question {i}?", "reference": f"answer {i}"})
                                  for i in range(len(texts))))
        import_benchmark(fmt="voicebench", subset=subset, path=path)
        benchmark = SourceBenchmark.objects.get(name="voicebench")
        for sample, text in zip(benchmark.samples.filter(subset=subset).order_by("pk"), texts, strict=True):
            translation = Translation.objects.create(sample=sample, rulebook_version=hyper, action="direct_translation",
                                                     source_transcription=sample.transcription, transcription_ko=text)
            NormalizedText.objects.create(sample=sample, translation=translation, rulebook_version=norm, text=text,
                                          status="ok", rules_fired=["punctuation"])
        return benchmark

    return make
