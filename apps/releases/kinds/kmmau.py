"""KMMAU release of a question set (seed 000, section 3.2): MMAU's fields plus audio, one config per
capability. Rows come from apps.authoring.exports.mmau_rows and the audio (whole clips, or cut segments)
from its write_export, so the release and the authoring export agree; `kmmau.json` (MMAU's layout, which
MMAU's evaluation script reads) travels beside the Parquet. Authors and reviewers appear as pseudonyms only:
the rows' own provenance (which may name an author) is replaced by the release's."""

from pathlib import Path

from apps.releases import pseudonyms
from apps.releases.kinds import Built, Item, SourceMissing, Ticker
from apps.releases.kinds.provenance_common import agent_calls
from apps.releases.licences import KNOWN_SOURCES

COLUMNS = {
    "id": "string", "audio": "audio", "audio_id": "string", "question": "string", "choices": "list:string",
    "answer": "string", "dataset": "string", "task": "string", "split": "string", "category": "string",
    "sub-category": "string", "difficulty": "string", "capability": "string", "utterance_id": "string",
    "start_seconds": "float64", "end_seconds": "float64", "license": "string",
}


def source(source_id: int):
    from apps.authoring.models import QuestionSet

    question_set = QuestionSet.objects.filter(pk=source_id).first()
    if question_set is None:
        raise SourceMissing(f"no question set with id {source_id}")
    return question_set


def selection(question_set) -> dict:
    return {"source": "question set", "id": question_set.pk, "name": question_set.name,
            "statuses": ["accepted questions"], "license": question_set.license}


def default_license(question_set) -> str:
    """The question set's own licence (CC-BY-NC-SA-4.0 in the paper)."""
    return question_set.license


def default_sources(question_set) -> list[dict]:
    from apps.authoring.selectors import accepted_questions

    corpora = {q.clip.corpus.name: q.clip.corpus.license for q in accepted_questions(question_set)}
    return [{"name": KNOWN_SOURCES.get(name.lower(), (name,))[0], "license": lic} for name, lic in sorted(corpora.items())]


def build(question_set, folder: Path, progress) -> Built:
    from apps.authoring.exports import mmau_rows, row_id, write_export
    from apps.authoring.models import Review
    from apps.authoring.selectors import accepted_questions

    ticker = Ticker(progress, 2, "Cutting audio and writing MMAU rows")
    counts = write_export(question_set, folder)
    (folder / "kmmau.csv").unlink()  # the card and the Parquet say the same; one table for people is enough
    ticker.tick()
    rows = mmau_rows(question_set)
    questions = {row_id(q): q for q in accepted_questions(question_set).prefetch_related("agent_calls")}
    reviews: dict[int, list] = {}
    for review in Review.objects.filter(question__in=questions.values()).order_by("created_at", "id"):
        reviews.setdefault(review.question_id, []).append(review)
    names = pseudonyms.for_users({r.reviewer_id for rs in reviews.values() for r in rs}
                                 | {q.author_id for q in questions.values() if q.author_id})
    calls = agent_calls(c.pk for q in questions.values() for c in q.agent_calls.all())
    items = []
    for row in rows:
        q = questions[row["id"]]
        method = row.pop("provenance", {}).get("method", q.method)
        data = {**{k: row.get(k) for k in COLUMNS if k != "audio"}, "audio": row["audio_id"].removeprefix("./")}
        decisions = [{"kind": "authored", "by": names[q.author_id], "at": q.created_at.isoformat(), "what": q.method}] if q.author_id else []
        decisions += [{"kind": "review", "by": names[r.reviewer_id], "at": r.created_at.isoformat(),
                       "what": r.decision + (f" ({', '.join(r.reasons)})" if r.reasons else "")} for r in reviews.get(q.pk, [])]
        people = {names[u]: u for u in {q.author_id, *(r.reviewer_id for r in reviews.get(q.pk, []))} if u}
        items.append(Item(
            item_id=data["id"], config=q.capability, split="test", row=data, audio_sha256=q.clip.audio.sha256,
            provenance={
                "id": data["id"],
                "source": {"corpus": q.clip.corpus.name, "utterance_id": q.clip.utterance_id,
                           "source_file": q.clip.source_file, "line": q.clip.source_line, "method": method,
                           "question_version": q.version, "audio_sha256": q.clip.audio.sha256},
                "agent_calls": [calls[c.pk] for c in sorted(q.agent_calls.all(), key=lambda c: c.pk) if c.pk in calls],
                "rulebook_versions": [],
                "human_decisions": {"count": len(decisions), "pseudonyms": sorted({d["by"] for d in decisions}),
                                    "decisions": decisions},
            },
            people=people,
            reason=f"edited by a reviewer (version {q.version})" if q.version > 1 else "",
        ))
    ticker.tick()
    capabilities: dict[str, int] = {}
    for item in items:
        capabilities[item.config] = capabilities.get(item.config, 0) + 1
    return Built(
        columns={c: COLUMNS for c in sorted(capabilities)},
        items=items,
        statistics={"questions": len(items), "audio files": counts["audio_files"],
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
