"""OpenAI-compatible transcription (`POST /v1/audio/transcriptions`) through
`client.audio.transcriptions.create`, JSON response. A self-hosted server (faster-whisper servers, vLLM
serving Whisper) works through the same module by its base URL."""

from apps.agents.transport import classify
from apps.speech.backends import ASRBackend
from apps.speech.backends._openai import client


class OpenAIASR(ASRBackend):
    name = "openai"

    def missing(self) -> str | None:
        if not self.config.get("model"):
            return "no ASR model is configured: set SORI_ASR_MODEL"
        if not (self.config.get("base_url") or self.config.get("api_key")):
            return "no ASR server is configured: set SORI_ASR_BASE_URL (self-hosted) or SORI_ASR_API_KEY"
        return None

    def transcribe(self, audio: bytes, *, filename: str) -> str:
        import openai  # here, not at module level: the SDK takes seconds to import and most commands never call it

        try:
            result = client(self.config).audio.transcriptions.create(
                model=self.model, file=(filename, audio, "audio/wav"),
                language=self.config.get("language") or "ko", response_format="json",
            )
        except openai.OpenAIError as exc:
            raise classify(exc, openai) from exc
        return result.text
