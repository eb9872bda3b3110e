"""KMMAU fixtures: corpus folders with real WAV files (KSS transcript, manifests), imported corpora and a
question set, and helpers that make questions in each state."""

import csv
import json
import unicodedata
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from tests.conftest import write_wav

KSS_LINES = [
    # (path, original, expanded, duration, english)
    ("1/1_0000.wav", "학교에서 친구를 만나고 학교를 나왔어요.", "학교에서 친구를 만나고 학교를 나왔어요.", "2.1", "I met a friend at school."),
    ("1/1_0001.wav", "오늘 회의는 3시에 시작합니다.", "오늘 회의는 세 시에 시작합니다.", "1.8", "Today's meeting starts at three."),
    ("1/1_0002.wav", "사과와 배와 포도와 수박을 샀어요.", "사과와 배와 포도와 수박을 샀어요.", "2.0", "I bought apples, pears, grapes and watermelon."),
]


class CorpusFolder:
    def __init__(self, root: Path):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._freq = 220.0

    def wav(self, rel: str, seconds: float = 1.0) -> Path:
        self._freq += 37.0  # distinct bytes per file
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_wav(path, seconds=seconds, freq=self._freq)

    def kss(self, lines=KSS_LINES, *, audio: bool = True) -> Path:
        rows = []
        for rel, original, expanded, duration, english in lines:
            if audio:
                self.wav(rel)
            decomposed = unicodedata.normalize("NFD", expanded)
            rows.append("|".join([rel, original, expanded, decomposed, duration, english]))
        path = self.root / "transcript.v.1.4.txt"
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return path

    def manifest(self, rows: list[dict], *, name: str = "manifest.csv", audio: bool = True) -> Path:
        for row in rows:
            if audio and row.get("audio") and not (self.root / row["audio"]).exists():
                self.wav(row["audio"])
        path = self.root / name
        if name.endswith(".jsonl"):
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        else:
            columns = list(dict.fromkeys(k for r in rows for k in r))
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=columns)
                writer.writeheader()
                writer.writerows(rows)
        return path


def seoul_rows(n: int = 4) -> list[dict]:
    ages = ["young", "middle", "senior", "청년"]
    genders = ["male", "female", "f", "남성"]
    texts = ["안녕하세요 반갑습니다", "도서관에서 책을 읽었어요", "버스를 타고 시장에 갔어요", "커피를 마시며 이야기를 나눴어요"]
    return [{"utterance_id": f"seoul-{i}", "audio": f"wav/seoul-{i}.wav", "transcript": texts[i % 4],
             "speaker_id": f"spk{i}", "gender": genders[i % 4], "age_group": ages[i % 4], "num_speakers": str(1 + i % 3)}
            for i in range(n)]


@pytest.fixture
def corpus_folder(tmp_path):
    return CorpusFolder(tmp_path / "corpus")


@pytest.fixture
def kss_corpus(db, corpus_folder):
    """A KSS-like corpus of three clips, made directly (one audio file shared; import has its own tests)."""
    from apps.audio.services import import_audio_file
    from apps.authoring.corpora import clean_written, nfc
    from apps.authoring.models import Clip, Corpus

    asset, _ = import_audio_file(corpus_folder.wav("shared.wav", seconds=1.5))
    corpus = Corpus.objects.create(name="KSS", format="kss", license="CC-BY-NC-SA-4.0", source="test")
    for line, (rel, _original, expanded, _duration, _english) in enumerate(KSS_LINES, start=1):
        Clip.objects.create(corpus=corpus, utterance_id=rel.split("/")[-1].removesuffix(".wav"), audio=asset,
                            raw_transcript=expanded, transcript=nfc(expanded), clean_transcript=clean_written(expanded),
                            speaker_id="kss", gender="female", num_speakers=1, source_file="transcript.v.1.4.txt",
                            source_line=line)
    return corpus


@pytest.fixture
def seoul_corpus(db, corpus_folder):
    """A manifest corpus with speaker metadata, its rows validated by the manifest row model and stored
    directly (one audio file shared)."""
    from apps.audio.services import import_audio_file
    from apps.authoring.corpora import ClipRow, clean_written, nfc
    from apps.authoring.models import Clip, Corpus

    asset, _ = import_audio_file(corpus_folder.wav("seoul.wav", seconds=1.2))
    corpus = Corpus.objects.create(name="Seoul", format="manifest", license="CC-BY-NC-2.0", source="test")
    for line, raw in enumerate(seoul_rows(), start=2):
        row = ClipRow.model_validate(raw)
        Clip.objects.create(corpus=corpus, utterance_id=row.utterance_id, audio=asset, raw_transcript=row.transcript,
                            transcript=nfc(row.transcript), clean_transcript=clean_written(row.transcript),
                            speaker_id=row.speaker_id, gender=row.gender, age_group=row.age_group,
                            num_speakers=row.num_speakers, source_file="manifest.csv", source_line=line)
    return corpus


@pytest.fixture
def question_set(db, admin):
    from apps.authoring.services import create_question_set

    return create_question_set(name="KMMAU test", acting_user=admin)


@pytest.fixture
def agent_question(question_set, kss_corpus):
    """An agent-style question in review (made directly: review tests do not need the agent)."""
    return make_agent_question(question_set, kss_corpus.clips.first())


def make_agent_question(question_set, clip, **overrides):
    from apps.authoring.capabilities import Method
    from apps.authoring.models import Question, QuestionStatus
    from apps.authoring.services import send_to_review

    question_set.corpora.add(clip.corpus)
    fields = dict(capability="fact_extraction", method=Method.AGENT, clip=clip, text="화자는 어디에서 친구를 만났나요?",
                  options=["학교", "시장", "도서관", "병원"], correct_index=0, evidence="학교에서 친구를 만나고",
                  dedup_key="fact_extraction", status=QuestionStatus.NEEDS_ATTENTION,
                  provenance={"method": "agent", "agent_calls": []})
    fields.update(overrides)
    return send_to_review(Question.objects.create(question_set=question_set, **fields))


def heard(clip, user) -> None:
    """The clip's audio was served to `user` (serve_audio records it) long enough ago to have played
    through, so a playback report now passes the playback gate."""
    from apps.audio.playback import note_served

    note_served(clip.audio, user, now=timezone.now() - timedelta(seconds=clip.audio.duration_seconds + 1))


def listened(clip, user) -> None:
    """`user` played the clip to its end: served long enough ago, and the page reported it (the gate that
    authoring, blind answers and reviews require)."""
    from apps.audio.playback import report_playback

    heard(clip, user)
    report_playback(asset=clip.audio, acting_user=user)
