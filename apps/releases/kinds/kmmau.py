"""KMMAU release of a question set (seed 000, section 3.2): MMAU's fields plus audio, one config per
capability, as KRAFTON publishes KMMAU (`original_dataset`, `original_sample_id`). Rows, audio (whole clips,
or cut segments) and LICENSE.md come from apps.authoring.exports (mmau_rows, write_audio, license_text), so
the release and the authoring export agree; `kmmau.json` (MMAU's test-mini layout, which MMAU's evaluation script
reads) travels beside the Parquet. Authors, reviewers, blind answerers and resolvers appear as stored
pseudonyms only: the rows' own provenance is replaced by the release's."""

from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext

from apps.accounts.pseudonyms import RELEASES, pseudonyms_for
from apps.authoring.exports import LICENSE_FILE, license_text, mmau_rows, row_id, write_audio
from apps.authoring.models import BlindAnswer, EscalationResolution, QuestionSet, Review
from apps.authoring.selectors import accepted_questions
from apps.core.errors import Conflict
from apps.releases.kinds import Built, Item, SourceMissing, Ticker
from apps.releases.kinds.provenance_common import agent_calls
from apps.releases.licences import KNOWN_SOURCES
from apps.releases.writing import write_json, write_text

COLUMNS = {
    "id": "string", "audio": "audio", "audio_id": "string", "question": "string", "choices": "list:string",
    "answer": "string", "dataset": "string", "task": "string", "split": "string", "category": "string",
    "sub-category": "string", "difficulty": "string", "capability": "string", "utterance_id": "string",
    "start_seconds": "float64", "end_seconds": "float64", "license": "string", "original_dataset": "string",
    "original_sample_id": "string",
}
MMAU_KEYS = ["id", "audio_id", "question", "choices", "answer", "dataset", "task", "split", "category",
             "sub-category", "difficulty", "capability", "utterance_id", "start_seconds", "end_seconds", "license"]


def source(source_id: int):
    question_set = QuestionSet.objects.filter(pk=source_id).first()
    if question_set is None:
        raise SourceMissing(f"no question set with id {source_id}")
    if not accepted_questions(question_set).exists():
        raise Conflict(gettext(
            "question set %(name)r has no accepted questions yet"
        ) % {"name": question_set.name}, code="nothing_to_release")
    return question_set


def selection(question_set) -> dict:
    return {"source": "question set", "id": question_set.pk, "name": question_set.name,
            "statuses": ["accepted questions"], "license": question_set.license}


def default_license(question_set) -> str:
    """The question set's own licence (CC-BY-NC-SA-4.0 in the paper)."""
    return question_set.license


def default_sources(question_set) -> list[dict]:
    pairs = accepted_questions(question_set).order_by().values_list("clip__corpus__name", "clip__corpus__license")
    corpora = dict(pairs.distinct())
    return [{"name": KNOWN_SOURCES.get(name.lower(), (name,))[0], "license": lic} for name, lic in sorted(corpora.items())]


@dataclass
class _Loaded:
    """What every question's item is made from, read once."""

    rows: list[dict]  # MMAU rows, audio under audio/
    questions: dict[str, object]  # row id -> accepted Question
    decided: dict[int, list[tuple[int, dict]]]  # question id -> [(user id, step)] (_human_decisions)
    names: dict[int, str]  # user id -> release pseudonym
    calls: dict[int, dict]  # agent call id -> its provenance entry


def build(question_set, folder: Path, progress) -> Built:
    """Load the accepted questions, write their audio and LICENSE.md, one item per question, kmmau.json,
    then the card's text."""
    ticker = Ticker(progress, 2, "Cutting audio and writing MMAU rows")
    loaded = _load(question_set)
    audio_files = write_audio(loaded.rows, loaded.questions, folder)
    write_text(folder / LICENSE_FILE, license_text(question_set, loaded.rows))
    ticker.tick()
    items = [_item(row, loaded) for row in loaded.rows]
    write_json(folder / "kmmau.json", [{k: row[k] for k in MMAU_KEYS} for row in loaded.rows])
    ticker.tick()
    return _card(question_set, items, audio_files)


def _load(question_set) -> _Loaded:
    rows = mmau_rows(question_set)
    for row in rows:  # the release keeps audio under audio/, its layout for every kind
        row["audio_id"] = "./audio/" + row["audio_id"].removeprefix("./audios/")
    questions = {row_id(q): q for q in accepted_questions(question_set).prefetch_related("agent_calls")}
    decided = _human_decisions(questions.values())
    names = pseudonyms_for({user for steps in decided.values() for user, _ in steps}, RELEASES)
    calls = agent_calls(c.pk for q in questions.values() for c in q.agent_calls.all())
    return _Loaded(rows=rows, questions=questions, decided=decided, names=names, calls=calls)


def _item(row: dict, loaded: _Loaded) -> Item:
    """One question's row (its own provenance replaced by the release's) and provenance line."""
    q = loaded.questions[row["id"]]
    method = row.pop("provenance", {}).get("method", q.method)
    data = {**{k: row.get(k) for k in COLUMNS if k != "audio"}, "audio": row["audio_id"].removeprefix("./"),
            "original_dataset": row["dataset"], "original_sample_id": row["utterance_id"]}
    steps = loaded.decided.get(q.pk, [])
    decisions = [{**step, "by": loaded.names[user]} for user, step in steps]
    people = {loaded.names[user]: user for user, _ in steps}
    calls = loaded.calls
    return Item(
        item_id=data["id"], config=q.capability, split="test", row=data, audio_sha256=q.clip.audio.sha256,
        provenance={
            "id": data["id"],
            "source": {"corpus": q.clip.corpus.name, "utterance_id": q.clip.utterance_id,
                       "source_file": q.clip.source_file, "line": q.clip.source_line, "method": method,
                       "question_version": q.version, "audio_sha256": q.clip.audio.sha256},
            "agent_calls": [calls[c.pk] for c in sorted(q.agent_calls.all(), key=lambda c: c.pk) if c.pk in calls],
            "rulebook_versions": [],
            "human_decisions": {"count": len(decisions), "pseudonyms": sorted(people), "decisions": decisions},
        },
        people=people,
        reason=f"edited by a reviewer (version {q.version})" if q.version > 1 else "",
    )


def _card(question_set, items: list[Item], audio_files: int) -> Built:
    """The configs, statistics and card text of the release."""
    capabilities: dict[str, int] = {}
    for item in items:
        capabilities[item.config] = capabilities.get(item.config, 0) + 1
    return Built(
        columns={c: COLUMNS for c in sorted(capabilities)},
        items=items,
        statistics={"questions": len(items), "audio files": audio_files,
                    "questions per capability": dict(sorted(capabilities.items()))},
        how_built=[
            f"Question set {question_set.name!r}: rule-based questions from speaker metadata (age, gender, number "
            "of speakers) and from transcripts (word order, word frequency); agent-written questions with human "
            "review (fact extraction, topic summary); manual questions by annotators who listened (general "
            "counting, role/profession).",
            "Distractors come from the same answer space; exactly one choice is correct; answer positions are balanced.",
            "Only accepted questions are released; authors and reviewers appear as stable pseudonyms.",
        ],
        task_categories=["audio-text-to-text", "question-answering"],
        tags=["kmmau", "audio-understanding", "multiple-choice"],
        extra_files={"kmmau.json": "the same questions in MMAU's test-mini layout (MMAU's evaluation script reads it)",
                     "LICENSE.md": "the question set's licence and each corpus's"},
    )


def _human_decisions(questions) -> dict[int, list[tuple[int, dict]]]:
    """question id -> [(user id, {kind, at, what})] in time order: who wrote it, each review of an agent
    question, the blind answer to a manual one and an admin's resolution of a disagreement (four queries)."""
    questions = list(questions)
    steps: dict[int, list] = {q.pk: [] for q in questions}
    for q in questions:
        if q.author_id:
            steps[q.pk].append((q.author_id, {"kind": "authored", "at": q.created_at.isoformat(), "what": q.method}))
    for r in Review.objects.filter(question__in=questions).order_by("created_at", "id"):
        what = r.decision + (f" ({', '.join(r.reasons)})" if r.reasons else "")
        steps[r.question_id].append((r.reviewer_id, {"kind": "review", "at": r.created_at.isoformat(), "what": what}))
    for a in BlindAnswer.objects.filter(question__in=questions).order_by("created_at", "id"):
        what = "matched the author's answer" if a.matches else "differed from the author's answer"
        steps[a.question_id].append((a.answerer_id, {"kind": "blind answer", "at": a.created_at.isoformat(), "what": what}))
    for e in EscalationResolution.objects.filter(question__in=questions).order_by("created_at", "id"):
        what = "accepted" + (f" with choice {e.correct_index + 1}" if e.correct_index is not None else "") if e.accepted else "rejected"
        steps[e.question_id].append((e.resolved_by_id, {"kind": "resolution", "at": e.created_at.isoformat(), "what": what}))
    for entries in steps.values():
        entries.sort(key=lambda entry: entry[1]["at"])
    return steps
