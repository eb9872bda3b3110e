"""The KMMAU export: one JSON array in MMAU's test-mini layout (id, audio_id, question, choices, answer,
dataset, task, split, category, sub-category, difficulty) beside the audio files, a CSV for people and a
licence statement. Accepted questions only.

Facts from MMAU's evaluation.py that shape it: `answer` is the text of the correct choice; the script
buckets by `task` (sound, music, speech) and `difficulty` (easy, medium, hard) and fails on any other value,
so every row has task "speech" and a difficulty from apps.authoring.capabilities; `sub-category` carries the
capability and `category` Acoustic or Contextual. Extra keys (capability, utterance_id, license, provenance)
are ignored by the script."""

import io
import json
import re
import shutil
from pathlib import Path

from apps.audio import pcm
from apps.audio.naming import without_audio_suffix
from apps.authoring import balance
from apps.authoring.capabilities import SPECS, Capability
from apps.authoring.models import Question, QuestionSet, Review
from apps.authoring.selectors import accepted_questions
from apps.core import csvsafe
from apps.instructions.services import version_at

EXPORT_JSON = "kmmau.json"
EXPORT_CSV = "kmmau.csv"
LICENSE_FILE = "LICENSE.md"
SPLIT = "test-mini"


def row_id(question: Question) -> str:
    return f"kmmau-{question.pk:07d}"


def _safe(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", text).strip("._") or "x"


def audio_id(question: Question) -> str:
    """Relative path of the question's audio in the export: one file per clip, or per segment of it."""
    clip = question.clip
    stem = _safe(without_audio_suffix(clip.utterance_id))  # the file written is WAV, whatever the id ends with
    if question.start_seconds is not None:
        stem += f"_{question.start_seconds:.2f}-{question.end_seconds:.2f}"
    return f"./audios/{_safe(clip.corpus.name)}/{stem}.wav"


def mmau_rows(question_set: QuestionSet) -> list[dict]:
    """The exported rows, sorted by id (a stable name: apps.releases packages these)."""
    questions = list(accepted_questions(question_set))
    arranged = balance.arrange(questions, seed=question_set.seed)
    # The annotator instructions each question's reviews were given under (ignored by MMAU's script).
    instructions_at, reviewed_under = version_at(question_set), {}
    for question_id, at in Review.objects.filter(question__question_set=question_set).values_list("question_id", "created_at"):
        reviewed_under.setdefault(question_id, set()).add(instructions_at(at))
    rows = []
    for q in questions:
        choices, position = arranged[q.pk]
        spec = SPECS[q.capability]
        rows.append({
            "id": row_id(q),
            "audio_id": audio_id(q),
            "question": q.text,
            "choices": choices,
            "answer": choices[position],
            "dataset": q.clip.corpus.name,
            "task": "speech",
            "split": SPLIT,
            "category": spec.category,
            "sub-category": Capability(q.capability).label,
            "difficulty": spec.difficulty,
            "capability": q.capability,
            "utterance_id": q.clip.utterance_id,
            "start_seconds": q.start_seconds,
            "end_seconds": q.end_seconds,
            "license": q.clip.corpus.license,
            "provenance": {"method": q.method, **q.provenance, "question_id": q.pk,
                           "review_instructions_versions": sorted(reviewed_under.get(q.pk, ()))},
        })
    rows.sort(key=lambda r: r["id"])
    return rows


CSV_COLUMNS = ["id", "capability", "category", "difficulty", "question", "choice_a", "choice_b", "choice_c",
               "choice_d", "answer", "answer_letter", "dataset", "utterance_id", "start_seconds", "end_seconds",
               "audio_id", "license", "method"]


def csv_text(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csvsafe.DictWriter(out, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    for row in rows:
        choices = row["choices"] + [""] * (4 - len(row["choices"]))
        writer.writerow({
            **{k: row[k] for k in ("id", "capability", "category", "difficulty", "question", "answer", "dataset",
                                   "utterance_id", "start_seconds", "end_seconds", "audio_id", "license")},
            "choice_a": choices[0], "choice_b": choices[1], "choice_c": choices[2], "choice_d": choices[3],
            "answer_letter": balance.LETTERS[row["choices"].index(row["answer"])],
            "method": row["provenance"]["method"],
        })
    return out.getvalue()


def license_text(question_set: QuestionSet, rows: list[dict]) -> str:
    corpora = {}
    for row in rows:
        corpora.setdefault(row["dataset"], row["license"])
    lines = [f"# {question_set.name}", "",
             f"Questions, choices and answers: {question_set.license}.", "",
             "The audio comes from these corpora, each under its own licence (also on every row, `license`):", ""]
    lines += [f"- {name}: {license}" for name, license in sorted(corpora.items())]
    lines += ["", f"{len(rows)} accepted questions. Built with Sori (KMMAU construction)."]
    return "\n".join(lines) + "\n"


def write_audio(rows: list[dict], questions: dict[str, Question], out_dir: Path) -> int:
    """Each row's audio (the whole clip, or its cut segment) at its `audio_id` under out_dir, each file once;
    `questions` maps row id -> question. Returns the number of files written."""
    written = set()
    for row in rows:
        if row["audio_id"] in written:
            continue
        q = questions[row["id"]]
        target = Path(out_dir) / row["audio_id"]
        target.parent.mkdir(parents=True, exist_ok=True)
        asset = q.clip.audio
        if q.start_seconds is None and asset.format == "wav":
            with asset.file.open("rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            with asset.file.open("rb") as src:
                data = src.read()
            audio = pcm.decode(data)
            if q.start_seconds is not None:
                audio = audio.cut(q.start_seconds, q.end_seconds)
            target.write_bytes(audio.wav(subtype=pcm.wav_subtype_of(data)))
        written.add(row["audio_id"])
    return len(written)


def write_export(question_set: QuestionSet, out_dir: Path) -> dict:
    """Write kmmau.json, kmmau.csv, LICENSE.md and audios/ into out_dir; returns counts."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = mmau_rows(question_set)
    audio_files = write_audio(rows, {row_id(q): q for q in accepted_questions(question_set)}, out_dir)
    (out_dir / EXPORT_JSON).write_text(json.dumps(rows, ensure_ascii=False, indent=2), encoding="utf-8")
    (out_dir / EXPORT_CSV).write_text(csv_text(rows), encoding="utf-8")
    (out_dir / LICENSE_FILE).write_text(license_text(question_set, rows), encoding="utf-8")
    return {"questions": len(rows), "audio_files": audio_files}
