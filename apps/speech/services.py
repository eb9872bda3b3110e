"""Writes of the speech stage: reference voices, starting a synthesis run, synthesizing one sample (TTS
sentence by sentence, join, ASR check, re-synthesis), and the admin's accept-by-ear and edit-and-rerun.

    run = start_run(acting_user=admin, benchmark=bench, subset="sd-qa")
    synthesize_sample(synthesis_id)      # what each Celery task (or the job's thread) does per sample
"""

import hashlib

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext

from apps.audio.services import import_uploaded_file, store_generated_wav
from apps.audio.store import atomic_import
from apps.core import limits
from apps.core.errors import Conflict, InvalidInput
from apps.core.limits import bounded
from apps.jobs.models import Job
from apps.jobs.services import start_job, start_stage_run
from apps.speech import assembly, calls, gate, voices
from apps.speech.backends import BackendNotConfigured, TTSRequest, VoiceSpec, asr_backend, tts_backend
from apps.speech.models import (
    DecisionAction,
    Gender,
    ReferenceVoice,
    SampleStatus,
    SampleSynthesis,
    SynthesisAttempt,
    SynthesisDecision,
    SynthesisRun,
)
from apps.transfer.normalizer import normalizer_for
from apps.transfer.selectors import ready_for_speech

RUN_JOB = "speech.run"
RERUN_JOB = "speech.rerun_sample"


# --- reference voices ------------------------------------------------------------------------------------
def voice_create(*, acting_user, name: str, gender: str, transcript: str, clip, vendor_voice: str = "") -> ReferenceVoice:
    """A reference voice from an uploaded clip (validated like any audio import) and its exact transcript."""
    if gender not in Gender.values:
        raise InvalidInput(gettext("gender must be one of %(values)s") % {"values": ', '.join(Gender.values)}, field="gender")
    if not transcript.strip():
        raise InvalidInput(gettext("the clip's exact transcript is required (voice-cloning servers read it)"), field="transcript")
    bounded(transcript, field="transcript", limit=limits.TRANSCRIPT)
    bounded(name, field="name", limit=ReferenceVoice._meta.get_field("name").max_length)
    bounded(vendor_voice, field="vendor_voice", limit=ReferenceVoice._meta.get_field("vendor_voice").max_length)
    if ReferenceVoice.objects.filter(name=name).exists():
        raise Conflict(gettext("a reference voice named %(name)r exists already") % {"name": name})
    with atomic_import():
        asset, _ = import_uploaded_file(clip)
        return ReferenceVoice.objects.create(name=name, gender=gender, transcript=transcript.strip(), clip=asset,
                                             vendor_voice=vendor_voice, created_by=acting_user)


def backends_missing() -> list[str]:
    """What stops a run: each missing backend setting, in words."""
    problems = []
    for kind, make in (("TTS", tts_backend), ("ASR", asr_backend)):
        try:
            missing = make().missing()
        except BackendNotConfigured as exc:
            missing = str(exc)
        if missing:
            problems.append(f"{kind}: {missing}")
    return problems


# --- runs --------------------------------------------------------------------------------------------------
def start_run(*, acting_user, benchmark, subset: str = "", limit: int | None = None, cer_threshold: float | None = None,
              max_attempts: int | None = None, pause_ms: int | None = None, sample_rate: int | None = None,
              seed: int = 0) -> SynthesisRun:
    """A run over the benchmark's ready normalized texts: one SampleSynthesis per sample with its voice, and
    the job that synthesizes them (started after commit)."""
    cer_threshold = settings.SPEECH_CER_THRESHOLD if cer_threshold is None else cer_threshold
    if cer_threshold < 0:
        raise InvalidInput(gettext("the CER threshold cannot be negative"), field="cer_threshold")
    max_attempts = max_attempts or settings.SPEECH_MAX_ATTEMPTS
    if max_attempts < 1:
        raise InvalidInput(gettext("at least one attempt per sample"), field="max_attempts")
    sample_rate = sample_rate or settings.SPEECH_SAMPLE_RATE
    if sample_rate not in (16000, 24000):
        raise InvalidInput(gettext("the sample rate must be 16000 or 24000"), field="sample_rate")
    missing = backends_missing()
    if missing:
        raise Conflict("cannot synthesize: " + "; ".join(missing), code="backend_missing")
    by_gender = {g: list(ReferenceVoice.objects.filter(gender=g, active=True).order_by("pk")) for g in Gender.values}
    if not any(by_gender.values()):
        raise Conflict(gettext("no reference voices: an admin uploads a male and a female Korean voice first"), code="no_voices")
    texts = list(ready_for_speech(benchmark=benchmark, subset=subset or None, limit=limit))
    if not texts:
        raise Conflict(gettext(
            "%(benchmark)s%(subset)s has no normalized text ready for speech"
        ) % {"benchmark": benchmark, "subset": '/' + subset if subset else ''},
                       code="nothing_ready")
    tts, asr = tts_backend(), asr_backend()
    assignment = voices.assign([t.sample_id for t in texts], {g: [v.pk for v in vs] for g, vs in by_gender.items()},
                               seed=seed)

    def create() -> SynthesisRun:
        run = SynthesisRun.objects.create(
            benchmark=benchmark, subset=subset, limit=limit, cer_threshold=cer_threshold, max_attempts=max_attempts,
            pause_ms=settings.SPEECH_PAUSE_MS if pause_ms is None else pause_ms, sample_rate=sample_rate, seed=seed,
            tts_backend=tts.name, tts_model=tts.model, asr_backend=asr.name, asr_model=asr.model,
            created_by=acting_user,
        )
        rows = []
        for text in texts:
            gender, slot = assignment[text.sample_id]
            rows.append(SampleSynthesis(run=run, sample_id=text.sample_id, normalized=text, text=text.text,
                                        gender=gender, voice=by_gender[gender][slot], voice_slot=slot))
        SampleSynthesis.objects.bulk_create(rows)
        return run

    return start_stage_run(lock=benchmark, runs=SynthesisRun.objects.filter(benchmark=benchmark), stage="synthesis run",
                           create=create, kind=RUN_JOB, title=f"Synthesize {benchmark}{'/' + subset if subset else ''}",
                           acting_user=acting_user, total=len(texts))


# --- one sample --------------------------------------------------------------------------------------------
def synthesize_sample(synthesis_id: int) -> str:
    """Synthesize, check and re-synthesize one sample until it passes or its attempts run out. Safe to run
    again: a sample that is no longer pending is left alone, and a finished attempt is reused."""
    # One query for everything the attempts read (the gate's normalizer needs the rulebook version).
    synthesis = SampleSynthesis.objects.select_related("run", "normalized__rulebook_version").get(pk=synthesis_id)
    if synthesis.status != SampleStatus.PENDING:
        return synthesis.status
    run = synthesis.run
    job = Job.objects.filter(pk=run.job_id).first() if run.job_id else None
    if job is not None and job.cancel_requested:
        return synthesis.status  # stays pending; a resumed run picks it up
    candidates = list(ReferenceVoice.objects.filter(gender=synthesis.gender, active=True).select_related("clip")
                      .order_by("pk")) or [synthesis.voice]
    tts, asr = tts_backend(), asr_backend()
    tried = []
    for index in range(run.max_attempts):
        number = synthesis.first_attempt_number + index
        voice = voices.voice_for_attempt(candidates, synthesis.voice_slot, index)
        seed = voices.attempt_seed(run.seed, synthesis.sample_id, number)
        try:
            attempt = _attempt(synthesis, number, voice, seed, tts, asr, job)
        except (calls.SpeechCallFailed, BackendNotConfigured, ValueError) as exc:
            return _finish(synthesis, SampleStatus.NEEDS_ATTENTION, reason=str(exc))
        tried.append(attempt)
        if attempt.passed:
            return _finish(synthesis, SampleStatus.PASSED, attempt=attempt)
    best = min(a.cer for a in tried)
    return _finish(synthesis, SampleStatus.NEEDS_ATTENTION,
                   reason=f"CER over {run.cer_threshold:g} in all {len(tried)} attempts (best {best:.3f})")


def idempotency_key(synthesis: SampleSynthesis, voice: ReferenceVoice, text_sha256: str, seed: int) -> str:
    parts = [synthesis.run_id, synthesis.sample_id, synthesis.normalized.rulebook_version_id, voice.pk, text_sha256, seed]
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


def _attempt(synthesis, number, voice, seed, tts, asr, job) -> SynthesisAttempt:
    run, text = synthesis.run, synthesis.text
    text_sha = hashlib.sha256(text.encode()).hexdigest()
    key = idempotency_key(synthesis, voice, text_sha, seed)
    existing = SynthesisAttempt.objects.filter(idempotency_key=key).first()
    if existing is not None and existing.checked:
        return existing  # a redelivered task: this attempt is done
    fields = {"synthesis": synthesis, "number": number, "voice": voice, "seed": seed, "text": text,
              "text_sha256": text_sha, "tts_backend": tts.name, "tts_model": tts.model, "asr_model": asr.model,
              "error": ""}
    # The lookup above already tells a new attempt from an unfinished one, so each is one write without
    # update_or_create's locking read first (the atomic block only keeps a refused insert from breaking an
    # outer transaction); a concurrent delivery that inserted the same key first is updated instead.
    attempt = existing
    if attempt is None:
        try:
            with transaction.atomic():
                attempt = SynthesisAttempt.objects.create(idempotency_key=key, **fields)
        except IntegrityError:
            attempt = SynthesisAttempt.objects.get(idempotency_key=key)
        else:
            fields = {}
    if fields:
        for name, value in fields.items():
            setattr(attempt, name, value)
        attempt.save(update_fields=[*fields, "updated_at"])
    sentences = assembly.split_sentences(text)
    if not sentences:
        raise ValueError("the text to synthesize is empty")
    spec = _voice_spec(voice, tts)
    try:
        pieces = [calls.synthesize(tts, TTSRequest(text=s, voice=spec, seed=seed), job=job).audio for s in sentences]
        joined = assembly.join_pieces(pieces, pause_ms=run.pause_ms, sample_rate=run.sample_rate,
                                      target_lufs=settings.SPEECH_TARGET_LUFS)
        asset = store_generated_wav(joined.wav, name=f"{synthesis.sample_id}-{number}.wav",
                                    duration_seconds=joined.duration_seconds, sample_rate=run.sample_rate, channels=1)
        # The audio is the attempt's as soon as it exists (the demo ASR finds the attempt by it).
        attempt.asset = asset
        attempt.save(update_fields=["asset", "updated_at"])
        heard = calls.transcribe(asr, joined.wav, audio_seconds=joined.duration_seconds, job=job)
    except calls.SpeechCallFailed as exc:
        attempt.error = str(exc)
        attempt.save(update_fields=["error", "updated_at"])
        raise
    reader = TranscriptReader(synthesis)
    result = gate.check(text=text, transcript=heard.text, threshold=run.cer_threshold, normalize=reader)
    attempt.context_readings = reader.applied
    attempt.asset, attempt.sentences, attempt.transcript = asset, sentences, heard.text
    attempt.compared_reference, attempt.compared_hypothesis = result.reference, result.hypothesis
    attempt.cer, attempt.wer, attempt.passed = result.cer, result.wer, result.passed
    attempt.save()
    return attempt


class TranscriptReader:
    """The ASR transcript read by the same deterministic normalizer, under the same normalization rulebook
    version, that made the text (an ASR writes 3개 where the text says 세 개).

    A context-dependent span of the transcript (3번, 010-1234-5678), which that stage hands to an agent, is
    compared as the reading the synthesized text chose for the same span, when that reading is one of the
    span's possible readings (세 번 for 3번; never 네 번): correct audio heard in digits then passes instead
    of being synthesized again. Each such substitution is kept in `applied` and stored on the attempt. The
    gate makes no agent call."""

    def __init__(self, synthesis: SampleSynthesis):
        self.engine = normalizer_for(synthesis.normalized.rulebook_version)
        self.chosen = {r["span"]: r["reading"] for r in synthesis.normalized.readings or [] if r.get("span")}
        self.applied: list[dict] = []

    def __call__(self, transcript: str) -> str:
        result = self.engine.normalize(transcript)
        text = result.text
        for pending in sorted(result.pending, key=lambda p: -p.start):
            reading = self.chosen.get(pending.span)
            possible = {_squashed(r) for r in self.engine.possible_readings(pending.span, pending.kind)}
            if reading and _squashed(reading) in possible:
                text = text[: pending.start] + reading + text[pending.end:]
                self.applied.insert(0, {"span": pending.span, "reading": reading})
        return text


def _squashed(text: str) -> str:
    return "".join(text.split())


def _voice_spec(voice: ReferenceVoice, tts) -> VoiceSpec:
    ref_audio = b""
    if tts.config.get("send_reference"):
        with voice.clip.file.open("rb") as fh:
            ref_audio = fh.read()
    return VoiceSpec(name=voice.name, gender=voice.gender, vendor_voice=voice.vendor_voice, ref_audio=ref_audio,
                     ref_audio_sha256=voice.clip.sha256, ref_text=voice.transcript)


def _finish(synthesis: SampleSynthesis, status: str, *, attempt=None, reason: str = "") -> str:
    # Only a pending sample finishes, so a duplicate delivery cannot overwrite an admin's decision.
    SampleSynthesis.objects.filter(pk=synthesis.pk, status=SampleStatus.PENDING).update(
        status=status, final_attempt=attempt, attention_reason=reason[:2000])
    return status


# --- admin decisions ---------------------------------------------------------------------------------------
def accept_attempt(*, acting_user, attempt: SynthesisAttempt, note: str = "") -> SampleSynthesis:
    """An admin accepts an attempt by ear (typically of a sample that needs attention)."""
    bounded(note, field="note", limit=limits.NOTE)
    if attempt.asset_id is None:
        raise Conflict(gettext("this attempt has no audio to accept"))
    with transaction.atomic():
        synthesis = SampleSynthesis.objects.select_for_update().get(pk=attempt.synthesis_id)
        if synthesis.status == SampleStatus.PENDING:
            raise Conflict(gettext("the sample is still being synthesized; wait for it to finish"))
        synthesis.status, synthesis.final_attempt, synthesis.attention_reason = SampleStatus.ACCEPTED, attempt, ""
        synthesis.save(update_fields=["status", "final_attempt", "attention_reason", "updated_at"])
        SynthesisDecision.objects.create(synthesis=synthesis, action=DecisionAction.ACCEPT, attempt=attempt,
                                         note=note, decided_by=acting_user)
    return synthesis


def edit_and_rerun(*, acting_user, synthesis: SampleSynthesis, text: str, note: str = "") -> SampleSynthesis:
    """An admin corrects the text to synthesize and runs the sample again: a new series of attempts (the
    earlier ones stay, playable), started as a job after commit."""
    text = text.strip()
    if not text:
        raise InvalidInput(gettext("the text to synthesize cannot be empty"), field="text")
    bounded(text, field="text", limit=limits.SAMPLE_TEXT)
    bounded(note, field="note", limit=limits.NOTE)
    with transaction.atomic():
        locked = SampleSynthesis.objects.select_for_update().get(pk=synthesis.pk)
        if locked.status == SampleStatus.PENDING:
            raise Conflict(gettext("the sample is still being synthesized; wait for it to finish"))
        last = locked.attempts.aggregate(n=Max("number"))["n"] or 0
        SynthesisDecision.objects.create(synthesis=locked, action=DecisionAction.EDIT_RERUN, old_text=locked.text,
                                         new_text=text, note=note, decided_by=acting_user)
        locked.text, locked.status, locked.final_attempt, locked.attention_reason = text, SampleStatus.PENDING, None, ""
        locked.first_attempt_number = last + 1
        locked.save(update_fields=["text", "status", "final_attempt", "attention_reason", "first_attempt_number", "updated_at"])
        start_job(kind=RERUN_JOB, title=f"Re-synthesize {locked.sample}", params={"synthesis_ids": [locked.pk]},
                  acting_user=acting_user, total=1)
    return locked
