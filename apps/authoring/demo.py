"""Demo data: a small KSS-like corpus (espeak-ng's Korean voice reading eight sentences, in KSS's
transcript layout), a second small corpus of demo speakers (espeak-ng's voice at other pitches and speeds, one
clip with two of them, in a manifest with gender, age group and number of speakers) and a question set with
questions for all nine KMMAU capabilities, each accepted the way the workflow accepts it:
- rule-based ones from the transcripts (KSS) and the metadata (demo speakers), accepted as made;
- with the scripted demo provider (./scripts/demo without a key), agent-written ones for two KSS clips per agent
  capability, approved by annotator2 and annotator3 after playing the clip to its end; then two more per
  capability that wait in every annotator's review queue, so a KMMAU review has work in a fresh demo (with a real
  provider an admin starts the question writer, as it spends money);
- manual ones (role/profession, general counting) written by annotator3 and answered blind, matching, by
  annotator2, each after playing the clip to its end.
The demo annotators' playbacks are recorded as if they had played the clip through (served its length ago,
then reported), so the seed passes the same playback gate a person does. apps.evaluation.demo releases the
accepted questions and has the three scripted models answer them (Table 6). Idempotent."""

import csv
import io
import tempfile
import unicodedata
import wave
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from apps.accounts.models import User
from apps.audio.espeak import synthesize_wav
from apps.audio.playback import note_served, report_playback
from apps.authoring.agent_questions import AGENT_CAPABILITIES, write_question, write_questions
from apps.authoring.capabilities import SPECS, Method
from apps.authoring.models import Clip, Corpus, QuestionSet, QuestionStatus
from apps.authoring.services import (
    author_question,
    create_question_set,
    generate_rule_questions,
    import_corpus,
    next_blind_answer,
    next_review,
    submit_blind_answer,
    submit_review,
)

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


# The demo speakers corpus: utterance id -> (what each voice says, in turn: (text, espeak voice, pitch, words per
# minute)), gender, age group, number of speakers. espeak-ng has one Korean voice; its female variant and its pitch
# and speed make the speakers (demo metadata, declared as a corpus manifest declares it). The two-speaker clip has
# no single gender or age, so it asks only how many speak.
SPEAKERS_CORPUS = "Demo speakers (espeak-ng)"
SPEAKERS = {
    "spk_0001": ([("저는 병원에서 일하는 간호사입니다. 오늘 환자 세 명을 돌봤어요.", "ko", 55, 175)], "male", "young", 1),
    "spk_0002": ([("저는 초등학교 선생님이에요. 우리 반에는 학생이 다섯 명 있어요.", "ko+f2", 40, 125)], "female", "senior", 1),
    "spk_0003": ([("저는 식당에서 요리를 하는 요리사입니다. 아침에 김밥을 네 줄 만들었어요.", "ko+f3", 60, 160)],
                 "female", "middle", 1),
    "spk_0004": ([("손님, 어디로 모실까요?", "ko", 35, 150), ("서울역으로 가 주세요. 가방이 두 개 있어요.", "ko+f3", 65, 160)],
                 "", "", 2),
}
# Manual questions: (utterance id, capability, question, options, correct index).
MANUAL = [
    ("spk_0001", "role_profession", "화자의 직업은 무엇인가요?", ["간호사", "요리사", "선생님", "택시 기사"], 0),
    ("spk_0002", "role_profession", "화자는 어디에서 일하나요?", ["병원", "초등학교", "식당", "역"], 1),
    ("spk_0001", "general_counting", "화자가 돌본 환자는 몇 명인가요?", ["한 명", "두 명", "세 명", "네 명"], 2),
    ("spk_0003", "general_counting", "화자가 만든 김밥은 몇 줄인가요?", ["두 줄", "세 줄", "네 줄", "다섯 줄"], 2),
]
AUTHOR, ANSWERER = "annotator3", "annotator2"  # the manual questions' author and their blind answerer
REVIEWERS = ("annotator2", "annotator3")  # approve the first agent-written questions (the set's two reviews)
REVIEWED_CLIPS = (4, 5)  # the KSS clips (by position) whose agent-written questions are reviewed and accepted
METADATA_CAPABILITIES = [c for c, s in SPECS.items() if s.method == Method.METADATA]


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
    speakers = Corpus.objects.filter(name=SPEAKERS_CORPUS).first() or _speakers_corpus()
    question_set = QuestionSet.objects.filter(name=DEMO_SET).first() or create_question_set(name=DEMO_SET)
    made = 0
    if not question_set.questions.filter(clip__corpus=corpus).exists():  # a restart skips loading Kiwi
        report = generate_rule_questions(question_set=question_set, corpus=corpus)
        made = sum(r["made"] for r in report.values())
    if not question_set.questions.filter(clip__corpus=speakers).exists():
        report = generate_rule_questions(question_set=question_set, corpus=speakers, capabilities=METADATA_CAPABILITIES)
        made += sum(r["made"] for r in report.values())
    people = {u.username: u for u in User.objects.filter(username__in=(AUTHOR, ANSWERER, *REVIEWERS))}
    accepted = written = 0
    if settings.SORI_DEMO_PROVIDER and not question_set.questions.filter(method=Method.AGENT).exists():
        # The reviewed ones first: then they are the only questions in the reviewers' queues.
        if all(name in people for name in REVIEWERS):
            accepted += _reviewed_agent_questions(question_set, corpus, [people[n] for n in REVIEWERS])
        for capability in AGENT_CAPABILITIES:
            written += write_questions(question_set=question_set, corpus=corpus, capability=capability, limit=2)["in_review"]
    if AUTHOR in people and ANSWERER in people and not question_set.questions.filter(method=Method.MANUAL).exists():
        accepted += _manual_questions(question_set, speakers, people[AUTHOR], people[ANSWERER])
    stdout.write(f"authoring: corpora {DEMO_CORPUS!r} ({corpus.clips.count()} clips) and {SPEAKERS_CORPUS!r} "
                 f"({speakers.clips.count()} clips), set {DEMO_SET!r} (+{made} rule-based questions, +{accepted} "
                 f"agent-written or manual ones reviewed or answered blind by the demo annotators, +{written} "
                 "agent-written ones waiting for review (demo answers))")


def _speakers_corpus() -> Corpus:
    """The demo speakers corpus, imported as a manifest corpus (CSV with metadata columns)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["utterance_id", "audio", "transcript", "speaker_id", "gender", "age_group", "num_speakers"])
        for utterance, (parts, gender, age, count) in SPEAKERS.items():
            _write_turns(root / f"{utterance}.wav", parts)
            speaker = "demo-" + "+".join(f"{voice}-{pitch}" for _, voice, pitch, _ in parts)
            writer.writerow([utterance, f"{utterance}.wav", " ".join(p[0] for p in parts), speaker, gender, age, count])
        (root / "manifest.csv").write_text(buffer.getvalue(), encoding="utf-8")
        return import_corpus(name=SPEAKERS_CORPUS, fmt="manifest", path=root / "manifest.csv", license="CC0-1.0",
                             source="espeak-ng demo")


def _write_turns(path: Path, parts) -> None:
    """One WAV of the turns one after another (espeak-ng writes every voice at the same rate and width)."""
    frames, params = [], None
    for text, voice, pitch, wpm in parts:
        with wave.open(io.BytesIO(synthesize_wav(text, voice=voice, pitch=pitch, words_per_minute=wpm))) as part:
            params = params or part.getparams()
            frames.append(part.readframes(part.getnframes()))
    with wave.open(str(path), "wb") as out:
        out.setparams(params)
        out.writeframes(b"".join(frames))


def _listened(clip: Clip, user) -> None:
    """The demo annotator played the clip to its end: served its length ago, then the playback reported."""
    note_served(clip.audio, user, now=timezone.now() - timedelta(seconds=clip.audio.duration_seconds + 1))
    report_playback(asset=clip.audio, acting_user=user)


def _reviewed_agent_questions(question_set, corpus, reviewers) -> int:
    """The question writer's questions for the REVIEWED_CLIPS, each approved by both reviewers (the set's two
    reviews), who are handed them by the review queue as a person is."""
    clips = list(corpus.clips.order_by("id"))
    for n in REVIEWED_CLIPS:
        for capability in AGENT_CAPABILITIES:
            write_question(question_set=question_set, clip=clips[n], capability=capability)
    for reviewer in reviewers:
        while (question := next_review(question_set=question_set, acting_user=reviewer)) is not None:
            _listened(question.clip, reviewer)
            submit_review(question=question, acting_user=reviewer, decision="approve")
    return question_set.questions.filter(method=Method.AGENT, status=QuestionStatus.ACCEPTED).count()


def _manual_questions(question_set, corpus, author, answerer) -> int:
    """MANUAL's questions, written by `author` and answered blind by `answerer` (who picks the right option:
    the match accepts them), both after playing the clip to its end."""
    clips = {c.utterance_id: c for c in corpus.clips.all()}
    for utterance, capability, text, options, index in MANUAL:
        clip = clips[utterance]
        _listened(clip, author)
        author_question(question_set=question_set, clip=clip, acting_user=author, capability=capability, text=text,
                        options=options, correct_index=index)
    accepted = 0
    while (question := next_blind_answer(question_set=question_set, acting_user=answerer)) is not None:
        _listened(question.clip, answerer)
        _, created = submit_blind_answer(question=question, acting_user=answerer,
                                         choice=question.options[question.correct_index])
        accepted += created
    return accepted
