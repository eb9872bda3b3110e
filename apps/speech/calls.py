"""Every TTS and ASR request goes through here: answered from the cache when the same input was answered
before (no request), otherwise sent through the vendor transport (apps.agents.transport: the backend's
concurrency slot, shared across processes, and retries with backoff on 429/5xx/timeouts, by the speech
settings' policy), and logged as a SpeechCall."""

import hashlib
import time
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import F

from apps.agents import transport
from apps.agents.transport import TransientVendorError, VendorError
from apps.audio.pcm import Pcm, UndecodableAudio, decode
from apps.speech.backends import ASRBackend, BackendNotConfigured, SpeechBackendError, TTSBackend, TTSRequest
from apps.speech.models import CallKind, CallStatus, SpeechCache, SpeechCall


class SpeechCallFailed(Exception):
    """The backend kept failing or refused the request; `call` is the logged failure."""

    def __init__(self, message: str, *, call: SpeechCall, permanent: bool):
        super().__init__(message)
        self.call, self.permanent = call, permanent


@dataclass
class TTSResult:
    data: bytes
    format: str
    audio: Pcm  # decoded once, here
    call: SpeechCall
    cached: bool


@dataclass
class ASRResult:
    text: str
    call: SpeechCall
    cached: bool


def synthesize(backend: TTSBackend, request: TTSRequest, *, job=None) -> TTSResult:
    digest = transport.input_hash({"kind": "tts", "backend": backend.name, **backend.cache_fields(request)})
    base = {"kind": CallKind.TTS, "backend": backend.name, "model": backend.model, "voice": request.voice.name,
            "input_hash": digest, "input_chars": len(request.text), "job": job}
    entry = _cached(digest)
    if entry is not None:
        with entry.audio.open("rb") as fh:
            data = fh.read()
        segment = decode(data)
        call = SpeechCall.objects.create(**base, status=CallStatus.CACHED, audio_seconds=segment.seconds)
        return TTSResult(data, entry.audio_format, segment, call, True)
    _require(backend)
    started = time.monotonic()
    audio, attempts = _with_retries(backend, lambda: backend.synthesize(request), base, started)
    try:
        segment = decode(audio.data)
    except UndecodableAudio as exc:
        raise _failed(base, TransientVendorError(f"the answer is not {audio.format} audio ({exc})"), attempts,
                      started, permanent=False) from None
    cost, priced = _price(settings.SPEECH_TTS.get("usd_per_million_chars"), len(request.text) / 1_000_000)
    call = SpeechCall.objects.create(**base, status=CallStatus.OK, http_attempts=attempts, latency_ms=_ms(started),
                                     cost_usd=cost, priced=priced, audio_seconds=segment.seconds)
    _store(digest, CallKind.TTS, call, audio=(audio.data, audio.format))
    return TTSResult(audio.data, audio.format, segment, call, False)


def transcribe(backend: ASRBackend, audio: bytes, *, audio_seconds: float, job=None) -> ASRResult:
    digest = transport.input_hash({"kind": "asr", "backend": backend.name, "model": backend.model,
                                   "base_url": backend.config.get("base_url"), "language": backend.config.get("language"),
                                   "audio": hashlib.sha256(audio).hexdigest()})
    base = {"kind": CallKind.ASR, "backend": backend.name, "model": backend.model, "input_hash": digest,
            "audio_seconds": audio_seconds, "job": job}
    entry = _cached(digest)
    if entry is not None:
        call = SpeechCall.objects.create(**base, status=CallStatus.CACHED)
        return ASRResult(entry.transcript, call, True)
    _require(backend)
    started = time.monotonic()
    text, attempts = _with_retries(backend, lambda: backend.transcribe(audio, filename="speech.wav"), base, started)
    cost, priced = _price(settings.SPEECH_ASR.get("usd_per_minute"), audio_seconds / 60)
    call = SpeechCall.objects.create(**base, status=CallStatus.OK, http_attempts=attempts, latency_ms=_ms(started),
                                     cost_usd=cost, priced=priced)
    _store(digest, CallKind.ASR, call, transcript=text)
    return ASRResult(text, call, False)


def _require(backend) -> None:
    missing = backend.missing()
    if missing:
        raise BackendNotConfigured(missing)


def _cached(digest: str) -> SpeechCache | None:
    entry = SpeechCache.objects.filter(input_hash=digest).first()
    if entry is not None:
        SpeechCache.objects.filter(pk=entry.pk).update(hits=F("hits") + 1)
    return entry


def _store(digest: str, kind: str, call: SpeechCall, *, audio: tuple[bytes, str] | None = None, transcript: str = ""):
    entry = SpeechCache(input_hash=digest, kind=kind, transcript=transcript, source_call=call)
    if audio is not None:
        data, fmt = audio
        entry.audio_format = fmt
        entry.audio.save(f"{digest[:2]}/{digest}.{fmt}", ContentFile(data), save=False)
    try:
        with transaction.atomic():
            entry.save()
    except IntegrityError:
        # Another worker cached the same input first; its answer serves as well, this file is not needed.
        if entry.audio.name:
            entry.audio.storage.delete(entry.audio.name)


def policy() -> transport.RetryPolicy:
    """The speech settings' retry policy; a server's retry-after is capped like the backoff."""
    return transport.RetryPolicy(attempts=settings.SPEECH_MAX_HTTP_ATTEMPTS,
                                 backoff_base=settings.SPEECH_BACKOFF_BASE_SECONDS,
                                 backoff_max=settings.SPEECH_BACKOFF_MAX_SECONDS,
                                 retry_after_max=settings.SPEECH_BACKOFF_MAX_SECONDS)


def _with_retries(backend, send, base: dict, started: float):
    """(send(), HTTP requests made) under the backend's own concurrency limit; a failure is logged as a
    SpeechCall and raised as SpeechCallFailed."""
    limit = (settings.SPEECH_TTS if base["kind"] == CallKind.TTS else settings.SPEECH_ASR)["concurrency"]
    try:
        return transport.send_with_retries(send, slot=f"speech-{base['kind']}:{backend.name}", policy=policy(),
                                           limit=limit)
    except (VendorError, SpeechBackendError) as exc:
        permanent = not isinstance(exc, TransientVendorError)
        raise _failed(base, exc, getattr(exc, "http_attempts", 1), started, permanent=permanent) from exc


def _failed(base: dict, exc: Exception, attempts: int, started: float, *, permanent: bool) -> SpeechCallFailed:
    call = SpeechCall.objects.create(**base, status=CallStatus.FAILED, http_attempts=attempts,
                                     latency_ms=_ms(started), error=str(exc))
    what = "refused the request" if permanent else f"kept failing after {attempts} tries"
    return SpeechCallFailed(f"{base['kind'].upper()} {base['backend']} {what}: {exc}", call=call, permanent=permanent)


def _price(rate: float | None, units: float) -> tuple[Decimal, bool]:
    if rate is None:
        return Decimal("0"), False
    return (Decimal(str(rate)) * Decimal(str(units))).quantize(Decimal("0.000001")), True


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
