"""Offline demo data: a few English source samples in two subsets (no provider needed)."""

import csv
import io
import json
from pathlib import Path

from apps.consultations.rulebooks import load_rulebooks
from apps.transfer.models import NormalizationStatus, SourceSample, Translation
from apps.transfer.normalization.services import normalize_translation, published_version
from apps.transfer.services import import_benchmark

SD_QA = [
    {"prompt": "What is the capital city of Australia?", "reference": "Canberra"},
    {"prompt": "How many legs does a spider have?", "reference": "eight"},
    {"prompt": "Who wrote the novel Pride and Prejudice?", "reference": "Jane Austen"},
    {"prompt": "What is the chemical symbol for gold?", "reference": "Au"},
]

WEB_QUESTIONS = [
    ("wq_0001.wav", "what language do they speak in switzerland?", "['German']"),
    ("wq_0002.wav", "what currency does japan use?", "['Japanese yen', 'Yen']"),
    ("wq_0003.wav", "who is the author of the hobbit?", "['J. R. R. Tolkien']"),
]


def seed(stdout) -> None:
    jsonl = "\n".join(json.dumps(row) for row in SD_QA).encode()
    # Demo benchmarks have their own names, so a real VoiceBench or OpenAudioBench import never meets them.
    result = import_benchmark(fmt="voicebench", subset="sd-qa", path=Path("sd-qa-demo.jsonl"), data=jsonl,
                              benchmark="voicebench-demo")
    stdout.write(f"  transfer: voicebench-demo/sd-qa {result.created} new, {result.unchanged} already there")
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["audio_filename", "question", "answers"])
    writer.writerows(WEB_QUESTIONS)
    result = import_benchmark(fmt="openaudiobench", subset="web_questions", path=Path("web_questions-demo.csv"),
                              data=buffer.getvalue().encode(), benchmark="openaudiobench-demo")
    stdout.write(f"  transfer: openaudiobench-demo/web_questions {result.created} new, {result.unchanged} already there")
    seed_translations(stdout)

# Korean for the demo samples, written by hand (marked as such), so the normalization stage and the pages
# have something to show without a provider. Numbers and symbols are left for the normalizer to read.
DEMO_KOREAN = {
    "What is the capital city of Australia?": ("호주의 수도는 어디인가요?", "캔버라"),
    "How many legs does a spider have?": ("거미의 다리는 8개인가요, 6개인가요?", "여덟 개"),
    "Who wrote the novel Pride and Prejudice?": ("1813년에 나온 소설 오만과 편견을 쓴 사람은 누구인가요?", "제인 오스틴"),
    "What is the chemical symbol for gold?": ("금의 원소 기호는 무엇인가요? 예: NaCl의 Na", "Au"),
}
DEMO_NOTE = "demo data: written by hand for seed_demo, not by the translator agent"


def seed_translations(stdout) -> None:
    load_rulebooks()
    hyper = published_version("hypertranslation")
    norm = published_version("normalization")
    made = 0
    for sample in SourceSample.objects.filter(benchmark__name="voicebench-demo").order_by("pk"):
        korean = DEMO_KOREAN.get(sample.transcription)
        if korean is None or sample.translations.exists():
            continue
        translation = Translation.objects.create(
            sample=sample, rulebook_version=hyper, action="direct_translation", source_transcription=sample.transcription,
            source_answer=sample.answer, transcription_ko=korean[0], answer_ko=korean[1], edit_note=DEMO_NOTE)
        normalized = normalize_translation(translation, version=norm)
        made += normalized.status == NormalizationStatus.OK
    stdout.write(f"  transfer: {made} new demo translations normalized for speech")
