"""Demo data: a small KSS-like corpus (espeak-ng's Korean voice reading eight sentences, in KSS's
transcript layout) and a question set with its rule-based questions. Annotators can author and answer
manual questions on it. With the scripted demo provider (./scripts/demo without a key) the question writer agent
writes two questions per capability it covers, through the real agent path, and they wait in the review queue,
so an annotator's KMMAU review has work in a fresh demo (with a real provider an admin starts that, as it spends
money). Idempotent."""

import tempfile
import unicodedata
from pathlib import Path

from django.conf import settings

from apps.audio.espeak import synthesize_wav
from apps.authoring.agent_questions import AGENT_CAPABILITIES, write_questions
from apps.authoring.capabilities import Method
from apps.authoring.models import Corpus, QuestionSet
from apps.authoring.services import create_question_set, generate_rule_questions, import_corpus

DEMO_CORPUS = "KSS demo (espeak-ng)"
DEMO_SET = "KMMAU demo"

SENTENCES = [
    "학교에서 친구를 만나고 학교 앞 식당에서 점심을 먹었어요.",
    "오늘 아침에 공원에서 산책을 하고 도서관에 갔습니다.",
    "시장에서 사과를 사고 사과를 하나 더 샀어요.",
    "버스를 타고 회사에 가는 길에 커피를 마셨어요.",
    "주말에 가족과 함께 바다에 가서 사진을 찍었어요.",
    "선생님께서 숙제를 내주셨고 학생들은 교실에서 숙제를 했습니다.",
    "비가 와서 우산을 쓰고 역까지 걸어갔어요.",
    "저녁에 친구와 영화를 보고 집에 돌아왔습니다.",
]


def seed_demo(stdout) -> None:
    corpus = Corpus.objects.filter(name=DEMO_CORPUS).first()
    if corpus is None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            lines = []
            for n, text in enumerate(SENTENCES):
                rel = f"1/1_{n:04d}.wav"
                (root / "1").mkdir(exist_ok=True)
                (root / rel).write_bytes(synthesize_wav(text))
                lines.append("|".join([rel, text, text, unicodedata.normalize("NFD", text), "3.0", ""]))
            (root / "transcript.v.1.4.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            # Sori's own sentences spoken by espeak-ng: CC0, a licence the release check knows, so the demo
            # can build a KMMAU release of the set.
            corpus = import_corpus(name=DEMO_CORPUS, fmt="kss", path=root / "transcript.v.1.4.txt",
                                   license="CC0-1.0", source="espeak-ng demo")
    question_set = QuestionSet.objects.filter(name=DEMO_SET).first() or create_question_set(name=DEMO_SET)
    made = 0
    if not question_set.questions.filter(clip__corpus=corpus).exists():  # a restart skips loading Kiwi
        report = generate_rule_questions(question_set=question_set, corpus=corpus)
        made = sum(r["made"] for r in report.values())
    written = 0
    if settings.SORI_DEMO_PROVIDER and not question_set.questions.filter(method=Method.AGENT).exists():
        for capability in AGENT_CAPABILITIES:
            written += write_questions(question_set=question_set, corpus=corpus, capability=capability, limit=2)["in_review"]
    stdout.write(f"authoring: corpus {DEMO_CORPUS!r} ({corpus.clips.count()} clips), set {DEMO_SET!r} "
                 f"(+{made} rule-based questions, +{written} agent-written ones waiting for review (demo answers); "
                 "annotators author and answer manual ones)")
