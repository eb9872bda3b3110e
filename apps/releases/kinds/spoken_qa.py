"""Spoken-QA release of a transferred benchmark (seed 000, section 3.1), in the layout KVoiceBench and
KOpenAudioBench publish: `id, audio, transcription, answer, aliases, subset, capability`, one config per
subset. Samples the ground-truth stage excluded or still holds back are left out, each with its reason.

Once the benchmark has translations, the release is the Korean one: the transcription is the sample's
current speech-ready normalized text (what TTS speaks), the answer and aliases its current translation's;
samples deleted or undecided by hypertranslation, or not yet normalized, are left out with the reason.
Before any translation exists it is the source benchmark after ground-truth correction (English)."""

from pathlib import Path

from apps.releases import pseudonyms
from apps.releases.kinds import Built, Item, SourceMissing, Ticker
from apps.releases.kinds.provenance_common import agent_calls
from apps.releases.licences import KNOWN_SOURCES

COLUMNS = {"id": "string", "audio": "audio", "transcription": "string", "answer": "string",
           "aliases": "list:string", "subset": "string", "capability": "string"}


def source(source_id: int):
    from apps.transfer.models import SourceBenchmark

    benchmark = SourceBenchmark.objects.filter(pk=source_id).first()
    if benchmark is None:
        raise SourceMissing(f"no source benchmark with id {source_id}")
    return benchmark


def default_license(obj) -> str | None:
    return "Apache-2.0"


def selection(benchmark) -> dict:
    return {"source": "benchmark", "id": benchmark.pk, "name": benchmark.name,
            "statuses": ["included after ground-truth correction"]}


def default_sources(benchmark) -> list[dict]:
    known = KNOWN_SOURCES.get(benchmark.name.lower())
    return [{"name": known[0], "license": known[1]}] if known else []


def build(benchmark, folder: Path, progress) -> Built:
    from apps.consultations.models import AnalysisResult
    from apps.transfer.models import CorrectionDecision, SourceSample
    from apps.transfer.selectors import current_translations, effective_answer, ready_for_speech

    samples = list(SourceSample.objects.filter(benchmark=benchmark)
                   .select_related("review", "correction").order_by("subset", "source_id"))
    ticker = Ticker(progress, len(samples), "Collecting effective answers and provenance")
    ids = [s.pk for s in samples]
    analyses: dict[int, list] = {}
    for a in AnalysisResult.objects.filter(sample_id__in=ids).select_related("version__rulebook").order_by("sample_id", "version__number"):
        analyses.setdefault(a.sample_id, []).append(a)
    decisions: dict[int, list] = {}
    for d in CorrectionDecision.objects.filter(correction__sample_id__in=ids).select_related("correction").order_by("created_at", "id"):
        decisions.setdefault(d.correction.sample_id, []).append(d)
    translations = {t.sample_id: t for t in current_translations(benchmark=benchmark)}
    spoken = {n.sample_id: n for n in ready_for_speech(benchmark=benchmark)} if translations else {}
    names = pseudonyms.for_users({d.decided_by_id for ds in decisions.values() for d in ds}
                                 | {t.edited_by_id for t in translations.values() if t.edited_by_id})

    def calls_of(s):
        review, correction = _review(s), _correction(s)
        used = [review.reviewer_call_id if review else None, correction.meta_call_id if correction else None]
        used += [a.agent_call_id for a in analyses.get(s.pk, [])]
        if s.pk in translations:
            used.append(translations[s.pk].agent_call_id)
        if s.pk in spoken:
            used.append(spoken[s.pk].agent_call_id)
        return [c for c in used if c]

    calls = agent_calls(c for s in samples for c in calls_of(s))

    items, excluded = [], {}
    for s in samples:
        item_id = f"{s.subset}/{s.source_id}"
        effective = effective_answer(s)
        if not effective.included:
            excluded[item_id] = effective.reason
            ticker.tick()
            continue
        translation = translations.get(s.pk)
        if translations and (held := _held_by_transfer(translation, spoken.get(s.pk))):
            excluded[item_id] = held
            ticker.tick()
            continue
        correction = _correction(s)
        mine = decisions.get(s.pk, [])
        human = [{"kind": "correction decision", "by": names[d.decided_by_id], "as": d.decided_as,
                  "at": d.created_at.isoformat(), "what": f"{d.from_status} -> {d.to_status}"
                  + (f": {d.note}" if d.note else "")} for d in mine]
        people = {names[d.decided_by_id]: d.decided_by_id for d in mine}
        versions = {f"{a.version.rulebook.slug} v{a.version.number}" for a in analyses.get(s.pk, [])}
        if translations:
            normalized = spoken[s.pk]
            versions |= {_version(translation.rulebook_version), _version(normalized.rulebook_version)}
            if translation.edited_by_id:
                human.append({"kind": "translation correction", "by": names[translation.edited_by_id], "as": "editor",
                              "at": translation.created_at.isoformat(), "what": translation.edit_note or "edited"})
                people[names[translation.edited_by_id]] = translation.edited_by_id
            text, answer, aliases = normalized.text, translation.answer_ko, list(translation.aliases_ko)
        else:
            text, answer, aliases = s.transcription, effective.answer, effective.aliases
        row = {"id": item_id, "audio": None, "transcription": text, "answer": answer,
               "aliases": aliases, "subset": s.subset, "capability": s.task_type}
        items.append(Item(
            item_id=item_id, config=s.subset, split="test", row=row,
            provenance={
                "id": item_id,
                "source": {"benchmark": benchmark.name, "subset": s.subset, "source_id": s.source_id,
                           "line": s.line_number, "answer": s.answer, "aliases": s.aliases},
                "agent_calls": [calls[c] for c in calls_of(s) if c in calls],
                "rulebook_versions": sorted(versions),
                "ground_truth": effective.reason,
                "translation": {"action": translation.action, "rules": translation.rule_ids,
                                "source_transcription": translation.source_transcription} if translations else None,
                "human_decisions": {"count": len(human), "pseudonyms": sorted({h["by"] for h in human}), "decisions": human},
            },
            people=people,
            reason=effective.reason + (f": {correction.reviewer_rationale}" if correction and effective.reason in
                                       ("corrected answer", "aliases added") else ""),
        ))
        ticker.tick()
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
            *(["Hypertranslation under the rulebook versions below: each sample translated, converted, replaced "
               "or deleted; the transcription is the speech-friendly normalized Korean."] if translations else
              ["No translation exists yet: the transcription and answers are the source's (English)."]),
            "This build has no synthesised audio yet: the `audio` column is empty until the speech stage has "
            "produced final audio.",
        ],
        task_categories=["question-answering", "audio-text-to-text"],
        tags=["spoken-qa", "benchmark"],
        languages=["ko"] if translations else ["en"],
    )


def _held_by_transfer(translation, normalized) -> str:
    """Why a sample of a translated benchmark is not released yet ("" when it is ready)."""
    if translation is None:
        return "not translated yet"
    if translation.action in ("deletion", "undecided", "needs_attention"):
        why = translation.reason or translation.attention_reason
        return f"hypertranslation: {translation.get_action_display().lower()}" + (f" ({why})" if why else "")
    if normalized is None:
        return "no speech-ready normalized text of its current translation yet"
    return ""


def _version(version) -> str:
    return f"{version.rulebook.slug} v{version.number}"


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
