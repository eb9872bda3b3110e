"""Spoken-QA release of a transferred benchmark (seed 000, section 3.1), in the layout KVoiceBench and
KOpenAudioBench publish: `id, audio, transcription, answer, aliases, subset, capability`, one config per
subset. Answers are the effective ones after ground-truth correction; samples the correction stage excluded
or still holds back are left out, each with its reason."""

from pathlib import Path

from apps.releases import pseudonyms
from apps.releases.kinds import Built, Item, SourceMissing
from apps.releases.kinds.provenance_common import agent_calls
from apps.releases.licences import KNOWN_SOURCES

DEFAULT_LICENSE = "Apache-2.0"

COLUMNS = {"id": "string", "audio": "audio", "transcription": "string", "answer": "string",
           "aliases": "list:string", "subset": "string", "capability": "string"}


def source(source_id: int):
    from apps.transfer.models import SourceBenchmark

    benchmark = SourceBenchmark.objects.filter(pk=source_id).first()
    if benchmark is None:
        raise SourceMissing(f"no source benchmark with id {source_id}")
    return benchmark


def selection(benchmark) -> dict:
    return {"source": "benchmark", "id": benchmark.pk, "name": benchmark.name,
            "statuses": ["included after ground-truth correction"]}


def default_sources(benchmark) -> list[dict]:
    known = KNOWN_SOURCES.get(benchmark.name.lower())
    return [{"name": known[0], "license": known[1]}] if known else []


def build(benchmark, folder: Path, progress) -> Built:
    from apps.consultations.models import AnalysisResult
    from apps.transfer.models import CorrectionDecision, SourceSample
    from apps.transfer.selectors import effective_answer

    samples = list(SourceSample.objects.filter(benchmark=benchmark)
                   .select_related("review", "correction").order_by("subset", "source_id"))
    progress.set_total(len(samples), message="Collecting effective answers and provenance")
    ids = [s.pk for s in samples]
    analyses: dict[int, list] = {}
    for a in AnalysisResult.objects.filter(sample_id__in=ids).select_related("version__rulebook").order_by("sample_id", "version__number"):
        analyses.setdefault(a.sample_id, []).append(a)
    decisions: dict[int, list] = {}
    for d in CorrectionDecision.objects.filter(correction__sample_id__in=ids).select_related("correction").order_by("created_at", "id"):
        decisions.setdefault(d.correction.sample_id, []).append(d)
    names = pseudonyms.for_users({d.decided_by_id for ds in decisions.values() for d in ds})
    call_ids = []
    for s in samples:
        review, correction = _review(s), _correction(s)
        call_ids += [review.reviewer_call_id if review else None, correction.meta_call_id if correction else None]
        call_ids += [a.agent_call_id for a in analyses.get(s.pk, [])]
    calls = agent_calls(c for c in call_ids if c)

    items, excluded = [], {}
    for s in samples:
        item_id = f"{s.subset}/{s.source_id}"
        effective = effective_answer(s)
        if not effective.included:
            excluded[item_id] = effective.reason
            progress.advance()
            continue
        review, correction = _review(s), _correction(s)
        used = [review.reviewer_call_id if review else None, correction.meta_call_id if correction else None]
        used += [a.agent_call_id for a in analyses.get(s.pk, [])]
        mine = decisions.get(s.pk, [])
        human = [{"kind": "correction decision", "by": names[d.decided_by_id], "as": d.decided_as,
                  "at": d.created_at.isoformat(), "what": f"{d.from_status} -> {d.to_status}"
                  + (f": {d.note}" if d.note else "")} for d in mine]
        row = {"id": item_id, "audio": None, "transcription": s.transcription, "answer": effective.answer,
               "aliases": effective.aliases, "subset": s.subset, "capability": s.task_type}
        items.append(Item(
            item_id=item_id, config=s.subset, split="test", row=row,
            provenance={
                "id": item_id,
                "source": {"benchmark": benchmark.name, "subset": s.subset, "source_id": s.source_id,
                           "line": s.line_number, "answer": s.answer, "aliases": s.aliases},
                "agent_calls": [calls[c] for c in used if c in calls],
                "rulebook_versions": sorted({f"{a.version.rulebook.slug} v{a.version.number}" for a in analyses.get(s.pk, [])}),
                "ground_truth": effective.reason,
                "human_decisions": {"count": len(human), "pseudonyms": sorted({h["by"] for h in human}), "decisions": human},
            },
            people={names[d.decided_by_id]: d.decided_by_id for d in mine},
            reason=effective.reason + (f": {correction.reviewer_rationale}" if correction and effective.reason in
                                       ("corrected answer", "aliases added") else ""),
        ))
        progress.advance()
    subsets: dict[str, int] = {}
    for item in items:
        subsets[item.config] = subsets.get(item.config, 0) + 1
    corrected = sum(1 for i in items if i.reason.startswith(("corrected answer", "aliases added")))
    return Built(
        columns={subset: COLUMNS for subset in sorted(subsets)},
        items=items, excluded=excluded,
        statistics={"samples released": len(items), "source samples": len(samples), "excluded": len(excluded),
                    "answers corrected": corrected, "samples with audio": 0, "samples per subset": dict(sorted(subsets.items()))},
        how_built=[
            f"Source benchmark {benchmark.name!r}, imported as published.",
            "Ground-truth correction: a reviewer model checked each deterministic answer against the "
            "transcription; a different meta-reviewer model verified each proposal; only confirmed corrections "
            "were applied and unresolved cases were excluded.",
            "This build has no synthesised audio yet and the transcription is the source's: the `audio` column "
            "is empty until the speech stage has produced final audio.",
        ],
        task_categories=["question-answering", "audio-text-to-text"],
        tags=["spoken-qa", "benchmark"],
        languages=["en"],  # the source transcriptions, until translated text is released
    )


def _review(sample):
    from apps.transfer.models import GroundTruthReview

    try:
        return sample.review
    except GroundTruthReview.DoesNotExist:
        return None


def _correction(sample):
    from apps.transfer.models import Correction

    try:
        return sample.correction
    except Correction.DoesNotExist:
        return None
