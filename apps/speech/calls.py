"""Every TTS and ASR request goes through here: answered from the cache when the same input was answered
before (no request), otherwise sent under the backend's concurrency limit (shared across processes through
apps.agents.slots), retried with backoff on 429/5xx/timeouts, and logged as a SpeechCall."""

import hashlib
import json
import logging
import random
import time
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import F
from pydub import AudioSegment
from pydub.exceptions import CouldntDecodeError

from apps.agents.slots import provider_slot
from apps.speech.assembly import decode
from apps.speech.backends import (
    ASRBackend,
    BackendNotConfigured,
    PermanentSpeechError,
    SpeechBackendError,
    TransientSpeechError,
    TTSBackend,
    TTSRequest,
)
from apps.speech.models import CallKind, CallStatus, SpeechCache, SpeechCall

log = logging.getLogger(__name__)


class SpeechCallFailed(Exception):
    """The backend kept failing or refused the request; `call` is the logged failure."""

    def __init__(self, message: str, *, call: SpeechCall, permanent: bool):
        super().__init__(message)
        self.call, self.permanent = call, permanent


@dataclass
class TTSResult:
    data: bytes
    format: str
    audio: AudioSegment  # decoded once, here
    call: SpeechCall
    cached: bool


@dataclass
class ASRResult:
    text: str
    call: SpeechCall
    cached: bool


def input_hash(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def synthesize(backend: TTSBackend, request: TTSRequest, *, job=None) -> TTSResult:
    digest = input_hash({"kind": "tts", "backend": backend.name, **backend.cache_fields(request)})
    base = {"kind": CallKind.TTS, "backend": backend.name, "model": backend.model, "voice": request.voice.name,
            "input_hash": digest, "input_chars": len(request.text), "job": job}
    entry = _cached(digest)
    if entry is not None:
        with entry.audio.open("rb") as fh:
            data = fh.read()
        segment = decode(data, entry.audio_format)
        call = SpeechCall.objects.create(**base, status=CallStatus.CACHED, audio_seconds=len(segment) / 1000)
        return TTSResult(data, entry.audio_format, segment, call, True)
    _require(backend)
    started = time.monotonic()
    audio, attempts = _with_retries(backend, lambda: backend.synthesize(request), base, started)
    try:
        segment = decode(audio.data, audio.format)
    except (CouldntDecodeError, IndexError, OSError) as exc:
        raise _failed(base, TransientSpeechError(f"the answer is not {audio.format} audio ({exc})"), attempts,
                      started, permanent=False) from None
    cost, priced = _price(settings.SPEECH_TTS.get("usd_per_million_chars"), len(request.text) / 1_000_000)
    call = SpeechCall.objects.create(**base, status=CallStatus.OK, http_attempts=attempts, latency_ms=_ms(started),
                                     cost_usd=cost, priced=priced, audio_seconds=len(segment) / 1000)
    _store(digest, CallKind.TTS, call, audio=(audio.data, audio.format))
    return TTSResult(audio.data, audio.format, segment, call, False)


def transcribe(backend: ASRBackend, audio: bytes, *, audio_seconds: float, job=None) -> ASRResult:
    digest = input_hash({"kind": "asr", "backend": backend.name, "model": backend.model,
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


def backoff_seconds(attempt: int) -> float:
    """Exponential backoff with jitter for retry number `attempt` (0-based): half fixed, half random."""
    ceiling = min(settings.SPEECH_BACKOFF_MAX_SECONDS, settings.SPEECH_BACKOFF_BASE_SECONDS * (2**attempt))
    return ceiling / 2 + random.uniform(0, ceiling / 2)


def _with_retries(backend, send, base: dict, started: float):
    attempts = settings.SPEECH_MAX_HTTP_ATTEMPTS
    limit = (settings.SPEECH_TTS if base["kind"] == CallKind.TTS else settings.SPEECH_ASR)["concurrency"]
    slot = f"speech-{base['kind']}:{backend.name}"
    for number in range(attempts):
        try:
            with provider_slot(slot, limit=limit):
                return send(), number + 1
        except TransientSpeechError as exc:
            if number + 1 >= attempts:
                raise _failed(base, exc, number + 1, started, permanent=False) from exc
            delay = exc.retry_after if exc.retry_after is not None else backoff_seconds(number)
            delay = min(delay, settings.SPEECH_BACKOFF_MAX_SECONDS)
            log.warning("%s %s: %s; retry %d/%d in %.2fs", base["kind"], backend.name, exc, number + 1, attempts - 1, delay)
            time.sleep(delay)  # outside the slot, so waiting does not hold up other requests
        except (PermanentSpeechError, SpeechBackendError) as exc:
            raise _failed(base, exc, number + 1, started, permanent=True) from exc
    raise AssertionError("unreachable")  # pragma: no cover


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
