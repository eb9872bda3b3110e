"""TTS and ASR vendors behind one small interface. Each vendor is one module here; apps.speech.calls wraps
every request in the call log, the cache, the retry policy and the per-backend concurrency limit.

    backend = tts_backend()            # from settings.SPEECH_TTS
    audio = backend.synthesize(TTSRequest(text=..., voice=VoiceSpec(...), seed=7))
    text = asr_backend().transcribe(wav_bytes, filename="attempt.wav")

A backend raises the vendor transport's two kinds (apps.agents.transport.classify maps the SDK's exceptions):
TransientVendorError (worth retrying: 408/409/429, 5xx, timeouts, connection errors) or PermanentVendorError
(anything else; PermanentSpeechError for a refusal of a backend's own), and BackendNotConfigured before
sending anything it cannot send."""

from dataclasses import dataclass, field

from django.conf import settings
from django.utils.module_loading import import_string

from apps.agents.transport import PermanentVendorError


class SpeechBackendError(Exception):
    pass


class BackendNotConfigured(SpeechBackendError):
    """A setting the backend needs is missing; the message names the variable."""


class PermanentSpeechError(PermanentVendorError, SpeechBackendError):
    """A backend of our own (espeak-ng, the demo ASR) refuses: never worth retrying."""


@dataclass(frozen=True)
class VoiceSpec:
    """What a backend needs of a reference voice."""

    name: str
    gender: str = ""  # "female" or "male"
    vendor_voice: str = ""
    ref_audio: bytes = b""  # the reference clip (WAV), for voice-cloning servers
    ref_audio_sha256: str = ""
    ref_text: str = ""  # the clip's exact transcript


@dataclass(frozen=True)
class TTSRequest:
    text: str
    voice: VoiceSpec
    seed: int = 0


@dataclass
class SynthesizedAudio:
    data: bytes
    format: str  # wav, mp3, flac...
    raw: dict = field(default_factory=dict)


class SpeechBackend:
    """What every TTS and ASR backend has: its settings (settings.SPEECH_TTS or SPEECH_ASR), the model it
    names, and why it cannot run."""

    kind = ""  # "TTS" or "ASR", as its settings are named (SORI_TTS_*, SORI_ASR_*)
    name = ""

    def __init__(self, config: dict):
        self.config = config

    @property
    def model(self) -> str:
        return self.config.get("model") or ""

    def missing(self) -> str | None:
        """Why this backend cannot run (naming the setting), or None."""
        return None


class TTSBackend(SpeechBackend):
    kind = "TTS"

    def cache_fields(self, request: TTSRequest) -> dict:
        """Everything that decides the audio, for the cache key."""
        return {"text": request.text, "voice": request.voice.name, "seed": request.seed}

    def synthesize(self, request: TTSRequest) -> SynthesizedAudio:  # pragma: no cover - interface
        raise NotImplementedError


class ASRBackend(SpeechBackend):
    kind = "ASR"

    def transcribe(self, audio: bytes, *, filename: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError


TTS_BACKENDS = {"espeak": "apps.speech.backends.espeak_tts.EspeakTTS",
                "openai": "apps.speech.backends.openai_tts.OpenAITTS"}
ASR_BACKENDS = {"openai": "apps.speech.backends.openai_asr.OpenAIASR",
                "demo": "apps.speech.backends.demo_asr.DemoASR"}


def tts_backend(config: dict | None = None) -> TTSBackend:
    return _backend("TTS", dict(config or settings.SPEECH_TTS), TTS_BACKENDS)


def asr_backend(config: dict | None = None) -> ASRBackend:
    return _backend("ASR", dict(config or settings.SPEECH_ASR), ASR_BACKENDS)


def _backend(kind: str, config: dict, backends: dict[str, str]):
    path = backends.get(config["backend"])
    if path is None:
        raise BackendNotConfigured(f"unknown {kind} backend {config['backend']!r} "
                                   f"(SORI_{kind}_BACKEND: {' or '.join(backends)})")
    return import_string(path)(config)  # the backend chosen by settings: only its module loads
