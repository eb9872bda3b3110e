"""What the OpenAI-compatible TTS and ASR modules share: the settings they need, and the openai SDK client
from the vendor transport's client cache. The SDK's own retries are off (max_retries=0):
apps.agents.transport owns the retry policy."""

from apps.agents import transport
from apps.speech.backends import SpeechBackend


class OpenAICompatible(SpeechBackend):
    def missing(self) -> str | None:
        if not self.config.get("model"):
            return f"no {self.kind} model is configured: set SORI_{self.kind}_MODEL"
        if not (self.config.get("base_url") or self.config.get("api_key")):
            return (f"no {self.kind} server is configured: set SORI_{self.kind}_BASE_URL (self-hosted) "
                    f"or SORI_{self.kind}_API_KEY")
        return None


def client(config: dict):
    import openai  # here, not at module level: the SDK takes seconds to import and most commands never call it

    # A self-hosted server may need no key, only its address.
    return transport.client(
        ("speech-openai", config.get("base_url"), config.get("api_key"), config.get("timeout")),
        lambda: openai.OpenAI(api_key=config.get("api_key") or "not-needed-by-this-server",
                              base_url=config.get("base_url"), max_retries=0, timeout=config.get("timeout") or 120),
    )
