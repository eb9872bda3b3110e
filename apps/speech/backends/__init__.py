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


class TTSBackend:
    name = ""

    def __init__(self, config: dict):
        self.config = config

    @property
    def model(self) -> str:
        return self.config.get("model") or ""

    def missing(self) -> str | None:
        """Why this backend cannot run (naming the setting), or None."""
        return None

    def cache_fields(self, request: TTSRequest) -> dict:
        """Everything that decides the audio, for the cache key."""
        return {"text": request.text, "voice": request.voice.name, "seed": request.seed}

    def synthesize(self, request: TTSRequest) -> SynthesizedAudio:  # pragma: no cover - interface
        raise NotImplementedError


class ASRBackend:
    name = ""

    def __init__(self, config: dict):
        self.config = config

    @property
    def model(self) -> str:
        return self.config.get("model") or ""

    def missing(self) -> str | None:
        return None

    def transcribe(self, audio: bytes, *, filename: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError


def tts_backend(config: dict | None = None) -> TTSBackend:
    config = dict(config or settings.SPEECH_TTS)
    if config["backend"] == "openai":
        from apps.speech.backends.openai_tts import OpenAITTS  # backend chosen by settings: only it loads

        return OpenAITTS(config)
    if config["backend"] == "espeak":
        from apps.speech.backends.espeak_tts import EspeakTTS  # backend chosen by settings: only it loads

        return EspeakTTS(config)
    raise BackendNotConfigured(f"unknown TTS backend {config['backend']!r} (SORI_TTS_BACKEND: espeak or openai)")


def asr_backend(config: dict | None = None) -> ASRBackend:
    config = dict(config or settings.SPEECH_ASR)
    if config["backend"] == "openai":
        from apps.speech.backends.openai_asr import OpenAIASR  # backend chosen by settings: only it loads

        return OpenAIASR(config)
    if config["backend"] == "demo":
        from apps.speech.backends.demo_asr import DemoASR  # backend chosen by settings: only it loads

        return DemoASR(config)
    raise BackendNotConfigured(f"unknown ASR backend {config['backend']!r} (SORI_ASR_BACKEND: openai or demo)")
