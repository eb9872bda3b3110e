"""Reads of the speech stage: the final audio per sample (what releases export), a run's summary, the
per-sample audit trail and which backends are configured."""

from dataclasses import dataclass

import jiwer
from django.db.models import Count

from apps.speech.backends import BackendNotConfigured, asr_backend, tts_backend
from apps.speech.models import (
    FINAL_STATUSES,
    CallStatus,
    SampleStatus,
    SampleSynthesis,
    SpeechCall,
    SynthesisAttempt,
    SynthesisRun,
)
from apps.transfer.selectors import effective_answer


@dataclass
class FinalAudio:
    sample: object  # apps.transfer.models.SourceSample
    synthesis: SampleSynthesis
    attempt: SynthesisAttempt
    asset: object  # apps.audio.models.AudioAsset
    voice: object  # ReferenceVoice
    text: str
    cer: float | None
    wer: float | None
    decided: str  # "passed" (the ASR gate) or "accepted" (an admin, by ear)


def final_audio(*, benchmark, subset: str | None = None) -> list[FinalAudio]:
    """Per sample of the benchmark (and subset), its accepted audio from the newest run that has one, in
    sample order. Samples without accepted audio are absent. (A stable name: apps.releases reads it.)"""
    qs = (SampleSynthesis.objects.filter(run__benchmark=benchmark, status__in=FINAL_STATUSES)
          .select_related("sample", "final_attempt__asset", "final_attempt__voice")
          .order_by("sample_id", "-run_id"))
    if subset:
        qs = qs.filter(sample__subset=subset)
    seen, out = set(), []
    for row in qs:
        if row.sample_id in seen:
            continue
        seen.add(row.sample_id)
        attempt = row.final_attempt
        out.append(FinalAudio(sample=row.sample, synthesis=row, attempt=attempt, asset=attempt.asset,
                              voice=attempt.voice, text=attempt.text, cer=attempt.cer, wer=attempt.wer,
                              decided=row.status))
    return out


def run_summary(run: SynthesisRun) -> dict:
    counts = dict(run.samples.values_list("status").annotate(n=Count("pk")))
    call_counts = dict(SpeechCall.objects.filter(job_id=run.job_id).values_list("status").annotate(n=Count("pk"))) if run.job_id else {}
    return {
        "total": sum(counts.values()),
        "by_status": [(label, counts.get(value, 0), value) for value, label in SampleStatus.choices],
        "cost_usd": SpeechCall.objects.filter(job_id=run.job_id).total_cost() if run.job_id else 0,
        "requests": call_counts.get(CallStatus.OK, 0) + call_counts.get(CallStatus.FAILED, 0),
        "cache_hits": call_counts.get(CallStatus.CACHED, 0),
    }


def marked_diff(reference: str, hypothesis: str) -> list[tuple[str, str, str]]:
    """(op, reference chars, heard chars) of the compared strings: equal, substitute, delete, insert."""
    if not reference or not hypothesis:
        return [("delete", reference, "")] if reference else []
    out = jiwer.process_characters(reference, hypothesis)
    return [(c.type, reference[c.ref_start_idx:c.ref_end_idx], hypothesis[c.hyp_start_idx:c.hyp_end_idx])
            for c in out.alignments[0]]


def audit(synthesis: SampleSynthesis) -> dict:
    """Everything from the English source to the audio for one sample of a run."""
    sample, normalized = synthesis.sample, synthesis.normalized
    attempts = list(synthesis.attempts.select_related("voice", "asset").order_by("number"))
    return {
        "synthesis": synthesis,
        "sample": sample,
        "answer": effective_answer(sample),
        "translation": normalized.translation,
        "normalized": normalized,
        "attempts": [(a, marked_diff(a.compared_reference, a.compared_hypothesis)) for a in attempts],
        "decisions": list(synthesis.decisions.select_related("decided_by", "attempt")),
    }


def backend_status() -> list[dict]:
    rows = []
    for kind, make in (("TTS", tts_backend), ("ASR", asr_backend)):
        try:
            backend = make()
            rows.append({"kind": kind, "backend": backend.name, "model": backend.model, "missing": backend.missing(),
                         "scripted": getattr(backend, "scripted", False)})
        except BackendNotConfigured as exc:
            rows.append({"kind": kind, "backend": "", "model": "", "missing": str(exc)})
    return rows


def samples_spoken() -> int:
    """Samples with final audio (passed the ASR check or accepted by ear), for the admin's home page."""
    return SampleSynthesis.objects.filter(status__in=FINAL_STATUSES).values("sample").distinct().count()


def samples_needing_attention() -> int:
    """Samples waiting for a person: every attempt missed the CER threshold and no later run gave them final audio."""
    final = SampleSynthesis.objects.filter(status__in=FINAL_STATUSES).values("sample")
    return (SampleSynthesis.objects.filter(status=SampleStatus.NEEDS_ATTENTION).exclude(sample__in=final)
            .values("sample").distinct().count())
