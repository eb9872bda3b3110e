"""OpenAI-compatible transcription (`POST /v1/audio/transcriptions`) through
`client.audio.transcriptions.create`, JSON response. A self-hosted server (faster-whisper servers, vLLM
serving Whisper) works through the same module by its base URL."""

from apps.agents.transport import classify
from apps.speech.backends import ASRBackend
from apps.speech.backends._openai import OpenAICompatible, client


class OpenAIASR(OpenAICompatible, ASRBackend):
    name = "openai"

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
