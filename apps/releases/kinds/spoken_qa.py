"""Spoken-QA release of a transferred benchmark (seed 000, section 3.1), in the layout KVoiceBench and
KOpenAudioBench publish: `id, audio, transcription, answer, aliases, subset, capability`, one config per
subset. Samples the ground-truth stage excluded or still holds back are left out, each with its reason.

Once the benchmark has translations, the release is the Korean one: the transcription is the sample's
current speech-ready normalized text (what TTS speaks), the answer and aliases its current translation's;
samples deleted or undecided by hypertranslation, or not yet normalized, are left out with the reason.
Each released Korean sample carries its accepted synthesis (apps.speech.selectors.final_audio) as
`audio/<subset>/<id>.<ext>`; its provenance lists that synthesis's attempts with their ASR check. A sample
without accepted audio of its current normalized text is left out with the reason.
Before any translation exists it is the source benchmark after ground-truth correction (English, text only:
Sori does not hold the source's audio).

An item whose rule-based checker reads more than the answer carries that checker data in its row
(apps.transfer.checker_data): IFEval's `instruction_id_list`, `kwargs` and `removed_instructions`, BBH's
`task` and a redesigned item's `choices`. A Korean item's are its translation's (the Korean keywords, letters
and phrases, without the instructions a rule removed), an English item's its source record's; the
evaluation run reads them from the row."""

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from django.utils.translation import gettext

from apps.accounts.pseudonyms import RELEASES, pseudonyms_for
from apps.audio.naming import file_name
from apps.consultations.models import AnalysisResult
from apps.core.errors import Conflict
from apps.releases.kinds import Built, Item, SourceMissing, Ticker, safe_name
from apps.releases.kinds.provenance_common import agent_calls
from apps.releases.licences import KNOWN_SOURCES
from apps.sources.models import SourceBenchmark, SourceSample
from apps.speech.models import SynthesisAttempt, SynthesisDecision
from apps.speech.selectors import final_audio
from apps.transfer import checker_data
from apps.transfer.models import (
    Correction,
    CorrectionDecision,
    GroundTruthReview,
)
from apps.transfer.selectors import current_translations, effective_answer, ready_for_speech

COLUMNS = {"id": "string", "audio": "audio", "transcription": "string", "answer": "string",
           "aliases": "list:string", "subset": "string", "capability": "string"}


def source(source_id: int):
    benchmark = SourceBenchmark.objects.filter(pk=source_id).first()
    if benchmark is None:
        raise SourceMissing(f"no source benchmark with id {source_id}")
    _refuse_if_empty(benchmark)
    return benchmark


def _refuse_if_empty(benchmark) -> None:
    """Refuse before building what would hold no sample, saying what is missing."""
    if not benchmark.samples.exists():
        raise Conflict(gettext(
            "benchmark %(name)r has no samples; import a subset first"
        ) % {"name": benchmark.name}, code="nothing_to_release")
    if current_translations(benchmark=benchmark).exists() and not final_audio(benchmark=benchmark):
        raise Conflict(gettext(
            "benchmark %(name)r is translated but no sample has accepted audio yet: a Korean release carries "
            "each sample's audio, so run the speech stage (/speech/) first"
        ) % {"name": benchmark.name},
                       code="nothing_to_release")


def default_license(obj) -> str | None:
    return "Apache-2.0"


def selection(benchmark) -> dict:
    return {"source": "benchmark", "id": benchmark.pk, "name": benchmark.name,
            "statuses": ["included after ground-truth correction"]}


def default_sources(benchmark) -> list[dict]:
    # Known by its name, or by the layout it was imported in (voicebench-demo holds VoiceBench data).
    known = KNOWN_SOURCES.get(benchmark.name.lower()) or KNOWN_SOURCES.get(benchmark.format)
    return [{"name": known[0], "license": known[1]}] if known else []


@dataclass
class _Loaded:
    """Everything the samples' items are made from, read in a fixed number of queries however many samples."""

    samples: list  # SourceSample, in (subset, source id) order
    analyses: dict[int, list]  # sample id -> its consultation analyses
    decisions: dict[int, list]  # sample id -> its correction decisions
    translations: dict[int, object]  # sample id -> current translation (empty: an English release)
    spoken: dict[int, object]  # sample id -> speech-ready normalized text
    audio: dict[int, object]  # sample id -> accepted synthesis (apps.speech.selectors.final_audio)
    attempts: dict[int, list]  # synthesis id -> its attempts
    speech_decisions: dict[int, list]  # synthesis id -> admins' decisions on it
    names: dict[int, str] = field(default_factory=dict)  # user id -> release pseudonym
    calls: dict[int, dict] = field(default_factory=dict)  # agent call id -> its provenance entry


def build(benchmark, folder: Path, progress) -> Built:
    """Load every sample and its history, make each released sample's item (copying its audio) or say why it
    is left out, then the card's text."""
    loaded = _load(benchmark)
    ticker = Ticker(progress, len(loaded.samples), "Collecting effective answers and provenance")
    items, excluded, audio_paths = [], {}, {}
    for s in loaded.samples:
        item_id = f"{s.subset}/{s.source_id}"
        effective = effective_answer(s)
        if (why := _left_out(s, effective, loaded)) is not None:
            excluded[item_id] = why
        else:
            items.append(_item(benchmark, s, effective, loaded, folder, audio_paths))
        ticker.tick()
    return _card(benchmark, items, excluded, loaded)


def _load(benchmark) -> _Loaded:
    samples = list(SourceSample.objects.filter(benchmark=benchmark)
                   .select_related("review", "correction").order_by("subset", "source_id"))
    ids = [s.pk for s in samples]
    analyses: dict[int, list] = {}
    for a in AnalysisResult.objects.filter(sample_id__in=ids).select_related("version__rulebook").order_by("sample_id", "version__number"):
        analyses.setdefault(a.sample_id, []).append(a)
    decisions: dict[int, list] = {}
    for d in CorrectionDecision.objects.filter(correction__sample_id__in=ids).select_related("correction").order_by("created_at", "id"):
        decisions.setdefault(d.correction.sample_id, []).append(d)
    translations = {t.sample_id: t for t in current_translations(benchmark=benchmark)}
    spoken = {n.sample_id: n for n in ready_for_speech(benchmark=benchmark)} if translations else {}
    audio = {a.sample.pk: a for a in final_audio(benchmark=benchmark)} if translations else {}
    # Two queries for every sample's attempts and speech decisions, however many there are.
    attempts: dict[int, list] = {}
    speech_decisions: dict[int, list] = {}
    finals = [a.synthesis.pk for a in audio.values()]
    for a in SynthesisAttempt.objects.filter(synthesis_id__in=finals).select_related("voice", "asset").order_by("synthesis_id", "number"):
        attempts.setdefault(a.synthesis_id, []).append(a)
    for d in SynthesisDecision.objects.filter(synthesis_id__in=finals).order_by("created_at", "id"):
        speech_decisions.setdefault(d.synthesis_id, []).append(d)
    loaded = _Loaded(samples=samples, analyses=analyses, decisions=decisions, translations=translations,
                     spoken=spoken, audio=audio, attempts=attempts, speech_decisions=speech_decisions)
    loaded.names = pseudonyms_for({d.decided_by_id for ds in decisions.values() for d in ds}
                                  | {t.edited_by_id for t in translations.values() if t.edited_by_id}
                                  | {d.decided_by_id for ds in speech_decisions.values() for d in ds}, RELEASES)
    loaded.calls = agent_calls(c for s in samples for c in _calls_of(s, loaded))
    return loaded


def _calls_of(s, loaded: _Loaded) -> list[int]:
    """The agent calls behind a sample: review, meta-review, analyses, translation, normalization."""
    review, correction = _review(s), _correction(s)
    used = [review.reviewer_call_id if review else None, correction.meta_call_id if correction else None]
    used += [a.agent_call_id for a in loaded.analyses.get(s.pk, [])]
    if s.pk in loaded.translations:
        used.append(loaded.translations[s.pk].agent_call_id)
    if s.pk in loaded.spoken:
        used.append(loaded.spoken[s.pk].agent_call_id)
    return [c for c in used if c]


def _left_out(s, effective, loaded: _Loaded) -> str | None:
    """Why the sample is not released (None when it is): ground truth first, then (once the benchmark has
    translations) hypertranslation, normalization and speech."""
    if not effective.included:
        return effective.reason
    if loaded.translations:
        spoken = loaded.spoken.get(s.pk)
        return _held_by_transfer(loaded.translations.get(s.pk), spoken) or _held_by_speech(loaded.audio.get(s.pk), spoken) or None
    return None


def _item(benchmark, s, effective, loaded: _Loaded, folder: Path, audio_paths: dict[str, str]) -> Item:
    """One released sample: its row (Korean with its audio copied in, or the corrected English source) and its
    provenance line."""
    item_id = f"{s.subset}/{s.source_id}"
    translation = loaded.translations.get(s.pk)
    human, people = _corrections(s, loaded)
    versions = {f"{a.version.rulebook.slug} v{a.version.number}" for a in loaded.analyses.get(s.pk, [])}
    if loaded.translations:
        normalized = loaded.spoken[s.pk]
        versions |= {_version(translation.rulebook_version), _version(normalized.rulebook_version)}
        if translation.edited_by_id:
            by = loaded.names[translation.edited_by_id]
            human.append({"kind": "translation correction", "by": by, "as": "editor",
                          "at": translation.created_at.isoformat(), "what": translation.edit_note or "edited"})
            people[by] = translation.edited_by_id
        final = loaded.audio[s.pk]
        # The transcription is what the audio says: the normalized text, or an admin's edit of it.
        text, answer, aliases = final.text, translation.answer_ko, list(translation.aliases_ko)
        audio_path = _copy_audio(final.asset, s, folder, audio_paths, item_id)
        for d in loaded.speech_decisions.get(final.synthesis.pk, []):
            human.append({"kind": "speech decision", "by": loaded.names[d.decided_by_id], "as": "admin",
                          "at": d.created_at.isoformat(), "what": d.get_action_display()
                          + (f": {d.note}" if d.note else "")})
            people[loaded.names[d.decided_by_id]] = d.decided_by_id
        synthesis = [_attempt(a, final) for a in loaded.attempts.get(final.synthesis.pk, [])]
    else:
        text, answer, aliases = s.transcription, effective.answer, effective.aliases
        audio_path, final, synthesis = None, None, []
    correction = _correction(s)
    row = {"id": item_id, "audio": audio_path, "transcription": text, "answer": answer,
           "aliases": aliases, "subset": s.subset, "capability": s.task_type, **_checker(s, translation, loaded)}
    return Item(
        item_id=item_id, config=s.subset, split="test", row=row, audio_sha256=final.asset.sha256 if final else "",
        provenance={
            "id": item_id,
            "source": {"benchmark": benchmark.name, "subset": s.subset, "source_id": s.source_id,
                       "line": s.line_number, "answer": s.answer, "aliases": s.aliases},
            "agent_calls": [loaded.calls[c] for c in _calls_of(s, loaded) if c in loaded.calls],
            "rulebook_versions": sorted(versions),
            "ground_truth": effective.reason,
            "translation": {"action": translation.action, "rules": translation.rule_ids,
                            "source_transcription": translation.source_transcription} if loaded.translations else None,
            "audio": {"sha256": final.asset.sha256, "run": final.synthesis.run_id, "decided": final.decided,
                      "normalized_text": loaded.spoken[s.pk].text} if final else None,
            "synthesis": synthesis,
            "human_decisions": {"count": len(human), "pseudonyms": sorted({h["by"] for h in human}), "decisions": human},
        },
        people=people,
        reason=effective.reason + (f": {correction.reviewer_rationale}" if correction and effective.reason in
                                   ("corrected answer", "aliases added") else ""),
    )


def _checker(s, translation, loaded: _Loaded) -> dict:
    """The row's checker fields: every field of the sample's family (apps.transfer.checker_data.FIELDS), from
    the translation for a Korean item (empty ones when it carries none) and from the source otherwise."""
    kind = checker_data.family(s)
    if kind is None:
        return {}
    given = translation.checker if loaded.translations else checker_data.source_checker(s)
    empty = {"string": "", "list:string": [], "json": []}
    return {name: given.get(name, empty[column]) for name, column in checker_data.FIELDS[kind].items()}


def _corrections(s, loaded: _Loaded) -> tuple[list[dict], dict[str, int]]:
    """The sample's ground-truth correction decisions as provenance entries, and pseudonym -> user id."""
    mine = loaded.decisions.get(s.pk, [])
    human = [{"kind": "correction decision", "by": loaded.names[d.decided_by_id], "as": d.decided_as,
              "at": d.created_at.isoformat(), "what": f"{d.from_status} -> {d.to_status}"
              + (f": {d.note}" if d.note else "")} for d in mine]
    return human, {loaded.names[d.decided_by_id]: d.decided_by_id for d in mine}


def _card(benchmark, items: list[Item], excluded: dict[str, str], loaded: _Loaded) -> Built:
    """The configs (one per subset), the statistics and the card's text."""
    translated = bool(loaded.translations)
    subsets: dict[str, int] = {}
    for item in items:
        subsets[item.config] = subsets.get(item.config, 0) + 1
    corrected = sum(1 for i in items if i.reason.startswith(("corrected answer", "aliases added")))
    return Built(
        columns={subset: _columns([i.row for i in items if i.config == subset]) for subset in sorted(subsets)},
        items=items, excluded=excluded,
        statistics={"samples released": len(items), "source samples": len(loaded.samples), "excluded": len(excluded),
                    "answers corrected": corrected,
                    "samples with audio": sum(1 for i in items if i.row["audio"]), "samples per subset": dict(sorted(subsets.items()))},
        how_built=[
            f"Source benchmark {benchmark.name!r}, imported as published.",
            "Ground-truth correction: a reviewer model checked each deterministic answer against the "
            "transcription; a different meta-reviewer model verified each proposal; only confirmed corrections "
            "were applied and unresolved cases were excluded.",
            *(["Hypertranslation under the rulebook versions below: each sample translated, converted, replaced "
               "or deleted; the transcription is the speech-friendly normalized Korean."] if translated else
              ["No translation exists yet: the transcription and answers are the source's (English)."]),
            *(["Speech: each sample synthesised with a reference voice, transcribed back by ASR and kept when its "
               "CER passed the gate or an admin accepted it by ear; samples without accepted audio are left out."]
              if translated else ["The `audio` column is empty: Sori does not hold the source benchmark's audio."]),
        ],
        task_categories=["question-answering", "audio-text-to-text"],
        tags=["spoken-qa", "benchmark"],
        languages=["ko"] if translated else ["en"],
    )


def _columns(rows: list[dict]) -> dict[str, str]:
    """A config's columns: the spoken-QA ones, and the checker fields its rows carry."""
    columns = dict(COLUMNS)
    for fields in checker_data.FIELDS.values():
        if any(name in row for row in rows for name in fields):
            columns.update(fields)
    return columns


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


def _held_by_speech(final, normalized) -> str:
    """Why a normalized sample is not released yet for want of audio ("" when its audio is ready)."""
    if normalized is None:
        return ""  # _held_by_transfer has said why
    if final is None:
        return "no accepted audio yet (the speech stage has not passed or accepted a synthesis)"
    if final.synthesis.normalized_id != normalized.pk:
        return "its accepted audio was synthesised from an earlier normalized text"
    return ""


def _copy_audio(asset, sample, folder: Path, taken: dict[str, str], item_id: str) -> str:
    rel = f"audio/{safe_name(sample.subset, 'subset')}/{file_name(sample.source_id, asset, fallback=str(sample.pk))}"
    if rel in taken:
        raise ValueError(f"samples {taken[rel]} and {item_id} would share the audio file {rel}")
    taken[rel] = item_id
    target = folder / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    with asset.file.open("rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return rel


def _attempt(attempt, final) -> dict:
    """One synthesis attempt and its ASR check, as provenance records it."""
    if attempt.passed is None:
        check = f"not checked{': ' + attempt.error if attempt.error else ''}"
    else:
        cer = f"CER {attempt.cer:.3f}" if attempt.cer is not None else "no CER"
        check = f"{cer} ({attempt.asr_model or 'ASR'}): {'passed' if attempt.passed else 'failed'}"
    return {"attempt": attempt.number, "voice": attempt.voice.name, "backend": attempt.tts_backend,
            "model": attempt.tts_model, "asr_model": attempt.asr_model, "seed": attempt.seed, "text": attempt.text,
            "transcript": attempt.transcript, "cer": attempt.cer, "wer": attempt.wer, "passed": attempt.passed,
            "check": check, "audio_sha256": attempt.asset.sha256 if attempt.asset_id else None,
            "kept": attempt.pk == final.attempt.pk}


def _version(version) -> str:
    return f"{version.rulebook.slug} v{version.number}"


def _review(sample):
    try:
        return sample.review
    except GroundTruthReview.DoesNotExist:
        return None


def _correction(sample):
    try:
        return sample.correction
    except Correction.DoesNotExist:
        return None
